import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import type { ConditionView } from './conditions.js';

/** A core/v1 Event as tests read it. */
export type TestEvent = KubeObject & {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  involvedObject?: { kind?: string; name?: string; uid?: string };
};

/** The Events in `namespace`; only those about the object named `name` when it is given. */
export async function eventsIn(client: KubeClient, namespace: string, name?: string): Promise<TestEvent[]> {
  const { items } = await client.list<TestEvent>(Kinds.Event, { namespace });
  return name === undefined ? items : items.filter((e) => e.involvedObject?.name === name);
}

/**
 * What a message a user reads must not contain: an HTTP verb with a path, a local URL, an API path
 * or a request's query parameters (the client's error text, passed on as it is).
 */
export const REQUEST_LINE =
  /\b(GET|POST|PUT|PATCH|DELETE)\s+\/|https?:\/\/127\.|\/apis?\/|fieldManager=|force=true/;

/** The first condition, other than Ready, that is False with reason Error (where a failure landed). */
export function failedCondition(obj: KubeObject | undefined): ConditionView | undefined {
  const { conditions } = (obj as { status?: { conditions?: ConditionView[] } } | undefined)?.status ?? {};
  return conditions?.find((c) => c.type !== 'Ready' && c.status === 'False' && c.reason === 'Error');
}
