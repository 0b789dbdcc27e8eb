/** The pulls held on one queue (upstream `broker/.../longpolling/ManyPullRequest.java`). */
import type { PullRequest } from './pull-request.js';

export class ManyPullRequest {
  private list: PullRequest[] = [];

  addPullRequest(pullRequest: PullRequest): void {
    this.list.push(pullRequest);
  }

  addPullRequests(many: readonly PullRequest[]): void {
    for (const r of many) this.list.push(r);
  }

  /** Takes every held request out (undefined when there is none). */
  cloneListAndClear(): PullRequest[] | undefined {
    if (this.list.length === 0) return undefined;
    const taken = this.list;
    this.list = [];
    return taken;
  }

  get size(): number {
    return this.list.length;
  }
}
