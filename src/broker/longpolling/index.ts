/** Long polling: pulls that found nothing are held until a message arrives or their time is up. */
export { ManyPullRequest } from './many-pull-request.js';
export { NotifyMessageArrivingListener } from './notify-message-arriving-listener.js';
export { PullRequest, type PullResponder } from './pull-request.js';
export { PullRequestHoldService, type PullRequestHoldServiceOptions } from './pull-request-hold-service.js';
