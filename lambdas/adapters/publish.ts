import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { errorMessage } from '../core/common/error-message';
import type { EventEntry } from '../core/findings/bus-entries';
import type { SnsNotification } from '../core/findings/render-notification';

/**
 * PutEvents accepts at most 10 entries a request
 * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html).
 */
export const MAX_ENTRIES_PER_PUT = 10;

export interface PublisherOptions {
  topicArn: string;
  /** Name or ARN of the event bus. @default 'default' */
  eventBusName?: string;
  /** PutEvents attempts for entries that keep failing. @default 4 */
  maxEventAttempts?: number;
  /** Backoff between attempts; injectable so tests do not wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** The entries that could not be put after every attempt, with the last error code of each. */
export interface PutEventsOutcome {
  put: string[];
  failed: Array<{ findingId: string; error: string }>;
}

/** Publishes notifications to the findings topic and events to EventBridge. */
export class Publisher {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly sns: SNSClient,
    private readonly events: EventBridgeClient,
    private readonly options: PublisherOptions,
  ) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** One SNS publish with `MessageStructure=json` and the filter-policy attributes; throws on failure. */
  async publishNotification(notification: SnsNotification): Promise<string | undefined> {
    const response = await this.sns.send(
      new PublishCommand({
        TopicArn: this.options.topicArn,
        Subject: notification.subject,
        Message: notification.message,
        MessageStructure: 'json',
        MessageAttributes: Object.fromEntries(
          Object.entries(notification.attributes).map(([name, value]) => [
            name,
            { DataType: 'String', StringValue: value },
          ]),
        ),
      }),
    );
    return response.MessageId;
  }

  /**
   * Puts events in requests of at most 10. Entries that fail (index-aligned with the request) are sent
   * again, alone, with backoff; entries that succeeded are never repeated. Never throws: what could
   * not be put is returned, so the caller decides (retry the invocation, count, alarm).
   */
  async putEvents(entries: EventEntry[]): Promise<PutEventsOutcome> {
    const outcome: PutEventsOutcome = { put: [], failed: [] };
    const maxAttempts = this.options.maxEventAttempts ?? 4;
    for (let start = 0; start < entries.length; start += MAX_ENTRIES_PER_PUT) {
      let pending = entries.slice(start, start + MAX_ENTRIES_PER_PUT);
      let lastErrors = new Map<string, string>();
      for (let attempt = 1; pending.length > 0 && attempt <= maxAttempts; attempt++) {
        if (attempt > 1) await this.sleep(100 * 2 ** (attempt - 2));
        const retry: EventEntry[] = [];
        lastErrors = new Map();
        try {
          const response = await this.events.send(new PutEventsCommand({ Entries: pending.map(this.toRequest) }));
          pending.forEach((entry, index) => {
            const result = response.Entries?.[index];
            if (result && !result.ErrorCode && result.EventId) {
              outcome.put.push(entry.findingId);
            } else {
              retry.push(entry);
              lastErrors.set(entry.findingId, result?.ErrorCode ?? 'no result for the entry');
            }
          });
        } catch (error) {
          for (const entry of pending) {
            retry.push(entry);
            lastErrors.set(entry.findingId, errorMessage(error));
          }
        }
        pending = retry;
      }
      for (const entry of pending) {
        outcome.failed.push({ findingId: entry.findingId, error: lastErrors.get(entry.findingId) ?? 'unknown' });
      }
    }
    return outcome;
  }

  private readonly toRequest = (entry: EventEntry): PutEventsRequestEntry => ({
    EventBusName: this.options.eventBusName ?? 'default',
    Source: entry.source,
    DetailType: entry.detailType,
    Detail: entry.detail,
    Resources: entry.resources,
  });
}
