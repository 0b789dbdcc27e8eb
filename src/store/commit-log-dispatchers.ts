/**
 * The commit log's dispatchers (consume queues, index: upstream's dispatcherList) and the first
 * failure among them, after which the commit log refuses appends, as upstream's logics-queue error
 * does.
 */
import type { Logger } from '../common/logger.js';
import type { AppendedBatch } from './commit-log-types.js';
import type { CommitLogDispatcher, DispatchRequest } from './dispatch-request.js';

export class CommitLogDispatchers {
  private readonly list: CommitLogDispatcher[] = [];
  private failure: Error | undefined;

  constructor(private readonly log: Logger) {}

  add(dispatcher: CommitLogDispatcher): void {
    this.list.push(dispatcher);
  }

  get isEmpty(): boolean {
    return this.list.length === 0;
  }

  /** The first error a dispatcher threw. */
  get error(): Error | undefined {
    return this.failure;
  }

  readonly dispatch = (request: DispatchRequest): void => {
    for (const d of this.list) {
      try {
        d.dispatch(request);
      } catch (err) {
        this.failed(err, request.topic, request.queueId, request.commitLogOffset);
      }
    }
  };

  /** A batch's records: together to a dispatcher that takes batches, one by one to any other. */
  readonly dispatchBatch = (batch: AppendedBatch): void => {
    for (const d of this.list) {
      if (d.dispatchBatch === undefined) {
        for (let i = 0; i < batch.count; i++) {
          const request = batch.request(i);
          try {
            d.dispatch(request);
          } catch (err) {
            this.failed(err, request.topic, request.queueId, request.commitLogOffset);
          }
        }
        continue;
      }
      try {
        d.dispatchBatch(batch);
      } catch (err) {
        this.failed(err, batch.topic, batch.queueId, batch.commitLogOffset);
      }
    }
  };

  private failed(err: unknown, topic: string, queueId: number, offset: bigint | number): void {
    if (this.failure !== undefined) return;
    this.failure = err instanceof Error ? err : new Error(String(err));
    this.log.error('dispatch failed; refusing further appends', {
      topic,
      queueId,
      offset,
      error: this.failure.message,
    });
  }
}
