/** Forwarder test helpers shared by the unit tests and the real-server tests. */
import type { PutEventsEntry } from '../../lib/events/envelope.ts';
import { changesOf } from '../../lib/events/merge.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import type { EventSink, PutResult } from '../../lib/forwarder/types.ts';

/**
 * RecordingSink: an in-memory EventSink keeping every entry put; `gate`, when set, holds puts
 * back. It stands in for EventBridge only to test the code above the sink.
 */
export class RecordingSink implements EventSink {
  readonly entries: PutEventsEntry[] = [];
  gate: Promise<void> | undefined;

  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    if (this.gate) await this.gate;
    this.entries.push(...entries);
    return { failed: [] };
  }

  /**
   * summary: every delivered event as `detail-type watchType kind/name@resourceVersion`, its
   * detail validated, followed by ` + watchType kind/name@resourceVersion` for each other object
   * it names (`also`: the forwarder folds a JobSet's changes in one window into one event).
   */
  summary(): string[] {
    return this.entries.map((entry) => {
      const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
      const also = (detail.also ?? []).map((change) => ` + ${change.watchType} ${change.kind}/${change.name}@${change.resourceVersion}`).join('');
      return `${entry.DetailType} ${detail.watchType} ${detail.kind}/${detail.name}@${detail.resourceVersion}${also}`;
    });
  }

  /**
   * lastByJobSet: the summary of the last event delivered per JobSet — what the bus ends up
   * saying about each, however the forwarder's window coalesced the changes before it.
   */
  lastByJobSet(): Record<string, string> {
    const last: Record<string, string> = {};
    for (const [index, entry] of this.entries.entries()) {
      const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
      last[`${detail.namespace}/${detail.jobSet}`] = this.summary()[index] ?? '';
    }
    return last;
  }

  /** about: what the delivered events said about the object `name` (its own or in `also`), as `detail-type watchType kind/name`. */
  about(name: string): string[] {
    return this.entries.flatMap((entry) => {
      const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
      return changesOf(detail)
        .filter((change) => change.name === name)
        .map((change) => `${entry.DetailType} ${change.watchType} ${change.kind}/${change.name}`);
    });
  }
}
