/**
 * How many exchanges the validating proxy judged, and how many it forwarded unjudged (its judging
 * queue was full), read from its `GET /__mock/violations` listing (which first judges every exchange
 * still waiting). The bench reads it before and after each scenario: a proxy that kept up judged
 * every exchange, and only then do its speed targets count.
 */
import { isObject } from '../contract/document.js';
import { parseJsonText } from '../util/json.js';

export interface JudgingCount {
  judged: number;
  notJudged: number;
}

/** The counts of the proxy at `url` since it started. */
export async function judgingOf(url: string): Promise<JudgingCount> {
  const answer = await fetch(`${url}/__mock/violations`);
  const text = await answer.text();
  const parsed = parseJsonText(text);
  const value = parsed.ok ? parsed.value : undefined;
  const judged = isObject(value) ? value['exchanges'] : undefined;
  const notJudged = isObject(value) ? value['notJudged'] : undefined;
  if (answer.status !== 200 || typeof judged !== 'number' || typeof notJudged !== 'number')
    throw new Error(`the proxy's /__mock/violations answered ${answer.status} without its counts: ${text.slice(0, 200)}`);
  return { judged, notJudged };
}

/** What happened between two readings. */
export function judgingBetween(before: JudgingCount, after: JudgingCount): JudgingCount {
  return { judged: after.judged - before.judged, notJudged: after.notJudged - before.notJudged };
}
