/**
 * The security changes of one operation present in both contracts, read from the operations model's
 * security (`contract/security.ts`: alternatives, each a set of schemes, and where each scheme's
 * credential travels), never from the document again:
 * - `security`: credentials required now, or no longer (`security: []`, an empty alternative `{}`);
 * - `security-scheme <name>`: a scheme added to or removed from one alternative (both needed together);
 * - `security-scheme <old>→<new>`: one scheme of an alternative replaced by another;
 * - `security-alternative <a+b>`: an alternative added or removed (any one of them suffices);
 * - `security-carrier <name>`: a scheme the operation uses in both sends its credential elsewhere
 *   (an API key moved from a header to the query, a header renamed, `bearer` → `basic`).
 *
 * Each is judged by what it does on the wire (`classify.ts` `securityVerdict`): the credentials of an
 * old alternative that no new alternative accepts are lost, those of a new alternative that no old
 * one accepted are gained. Schemes are matched by name; credentials by where they travel, so a scheme
 * renamed but sent as before changes nothing for either side.
 */
import type { JsonValue } from '../../contract/document.js';
import { carrierText, schemesOf, type Carrier, type SecurityScheme } from '../../contract/security.js';
import { childPointer } from '../../util/json-pointer.js';
import { securityVerdict, type CredentialsMoved, type Verdict } from './classify.js';
import type { SecuritySurface } from './surface.js';

export interface SecurityChange {
  aspect: string;
  verdict: Verdict;
  old?: JsonValue;
  new?: JsonValue;
  pointers: { old: string; new: string };
}

/** One alternative of an operation's requirements, at its index in the `security` list. */
interface Alternative {
  index: number;
  schemes: readonly SecurityScheme[];
  names: ReadonlySet<string>;
  /** Where each of its credentials travels. */
  carriers: ReadonlySet<string>;
}

const carrierKey = (carrier: Carrier): string => JSON.stringify(carrier);

function alternativesOf(surface: SecuritySurface): Alternative[] {
  return surface.model.alternatives.map((schemes, index) => ({
    index,
    schemes,
    names: new Set(schemes.map((s) => s.name)),
    carriers: new Set(schemes.map((s) => carrierKey(s.carrier))),
  }));
}

const within = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].every((x) => b.has(x));
const overlap = (a: Alternative, b: Alternative): number => [...a.names].filter((n) => b.names.has(n)).length;
const sameNames = (a: Alternative, b: Alternative): boolean => a.names.size === b.names.size && within(a.names, b.names);

/** A request carrying exactly the credentials of `alternative` is accepted by `requirements` (none: nothing is asked). */
function accepted(alternative: Alternative, requirements: readonly Alternative[]): boolean {
  return requirements.length === 0 || requirements.some((r) => within(r.carriers, alternative.carriers));
}

/** `bearerAuth (Authorization: Bearer)`. */
const label = (scheme: SecurityScheme): string => `${scheme.name} (${carrierText(scheme.carrier)})`;
const labels = (alternative: Alternative): string => alternative.schemes.map(label).join(' + ');
const names = (alternative: Alternative): string[] => alternative.schemes.map((s) => s.name);
const requirementsValue = (alternatives: readonly Alternative[]): JsonValue => alternatives.map(names);

/** The keyword of `scheme` that moved its credential (`in`, `name`, `scheme`), or the scheme object when more did. */
function carrierPointer(scheme: SecurityScheme, other: SecurityScheme): string {
  const [a, b] = [scheme.carrier, other.carrier];
  if (a.kind === 'apiKey' && b.kind === 'apiKey') {
    const sameName = a.name.toLowerCase() === b.name.toLowerCase();
    if (a.in !== b.in && sameName) return childPointer(scheme.pointer, 'in');
    if (a.in === b.in && !sameName) return childPointer(scheme.pointer, 'name');
  }
  if (a.kind === 'authorization' && b.kind === 'authorization' && scheme.type === 'http') return childPointer(scheme.pointer, 'scheme');
  return scheme.pointer;
}

/** Pairs the alternatives only one side has: by the schemes they share, then in order. */
function pairAlternatives(
  gone: Alternative[],
  come: Alternative[],
): { pairs: [Alternative, Alternative][]; gone: Alternative[]; come: Alternative[] } {
  const free = [...come];
  const pairs: [Alternative, Alternative][] = [];
  const unpaired: Alternative[] = [];
  for (const o of gone) {
    let best: Alternative | undefined;
    for (const n of free) if (overlap(o, n) > 0 && (best === undefined || overlap(o, n) > overlap(o, best))) best = n;
    if (best === undefined) unpaired.push(o);
    else {
      pairs.push([o, best]);
      free.splice(free.indexOf(best), 1);
    }
  }
  const left: Alternative[] = [];
  for (const o of unpaired) {
    const n = free.shift();
    if (n === undefined) left.push(o);
    else pairs.push([o, n]);
  }
  return { pairs, gone: left, come: free };
}

/** Every security change of an operation from `before` to `after` (the same operation in both contracts). */
export function securityChanges(before: SecuritySurface, after: SecuritySurface): SecurityChange[] {
  const out: SecurityChange[] = [];
  const olds = alternativesOf(before);
  const news = alternativesOf(after);
  const at = (surface: SecuritySurface, ...parts: (string | number)[]): string =>
    parts.reduce<string>((pointer, part) => childPointer(pointer, part), surface.pointer);
  const add = (change: SecurityChange, alternative?: number): void => {
    // Two changes of one scheme in two alternatives: the second names its alternative (its index in the list).
    const taken = out.some((c) => c.aspect === change.aspect);
    out.push(taken && alternative !== undefined ? { ...change, aspect: `${change.aspect} (alternative ${alternative})` } : change);
  };

  // Credentials required, or no longer: what a client sends is judged against every alternative.
  const filled = olds.filter((a) => a.names.size > 0);
  const fresh = news.filter((a) => a.names.size > 0);
  if (before.model.secured !== after.model.secured) {
    const anonymous: Alternative = { index: -1, schemes: [], names: new Set(), carriers: new Set() };
    const moved: CredentialsMoved = {
      lost: (olds.length > 0 ? olds : [anonymous]).some((o) => !accepted(o, news)),
      gained: (news.length > 0 ? news : [anonymous]).some((n) => !accepted(n, olds)),
    };
    const what = after.model.secured
      ? `credentials now required (${fresh.map(labels).join(' or ')})`
      : fresh.length > 0
        ? `credentials made optional (an empty alternative added to ${fresh.map(labels).join(' or ')})`
        : news.length === 0
          ? 'credentials no longer required (security: [])'
          : 'credentials no longer required (an empty alternative {})';
    add({
      aspect: 'security',
      verdict: securityVerdict(what, moved),
      old: requirementsValue(olds),
      new: requirementsValue(news),
      pointers: { old: before.pointer, new: after.pointer },
    });
    // Turned on or off entirely: that one change says it all.
    if (filled.length === 0 || fresh.length === 0) return out;
  }

  // A scheme used in both whose credential travels elsewhere.
  const oldSchemes = new Map(schemesOf(before.model).map((s) => [s.name, s]));
  for (const scheme of schemesOf(after.model)) {
    const was = oldSchemes.get(scheme.name);
    if (was === undefined || carrierKey(was.carrier) === carrierKey(scheme.carrier)) continue;
    const moved: CredentialsMoved = {
      lost: filled.some((o) => o.names.has(scheme.name) && !accepted(o, news)),
      gained: fresh.some((n) => n.names.has(scheme.name) && !accepted(n, olds)),
    };
    add({
      aspect: `security-carrier ${scheme.name}`,
      verdict: securityVerdict(`${scheme.name} moved from ${carrierText(was.carrier)} to ${carrierText(scheme.carrier)}`, moved),
      old: carrierText(was.carrier),
      new: carrierText(scheme.carrier),
      pointers: { old: carrierPointer(was, scheme), new: carrierPointer(scheme, was) },
    });
  }

  // The alternatives: unchanged ones aside, paired by the schemes they share.
  const { pairs, gone, come } = pairAlternatives(
    filled.filter((o) => !fresh.some((n) => sameNames(o, n))),
    fresh.filter((n) => !filled.some((o) => sameNames(o, n))),
  );
  for (const [o, n] of pairs) {
    const added = n.schemes.filter((s) => !o.names.has(s.name));
    const removed = o.schemes.filter((s) => !n.names.has(s.name));
    const lost = !accepted(o, news);
    const gained = !accepted(n, olds);
    const [single, replacement] = [removed[0], added[0]];
    if (removed.length === 1 && added.length === 1 && single !== undefined && replacement !== undefined) {
      add(
        {
          aspect: `security-scheme ${single.name}→${replacement.name}`,
          verdict: securityVerdict(`${label(single)} replaced by ${label(replacement)}`, { lost, gained }),
          old: names(o),
          new: names(n),
          pointers: { old: at(before, o.index, single.name), new: at(after, n.index, replacement.name) },
        },
        n.index,
      );
      continue;
    }
    for (const scheme of added)
      add(
        {
          aspect: `security-scheme ${scheme.name}`,
          verdict: securityVerdict(`${label(scheme)} now required with ${labels(o)}`, { lost, gained: false }),
          old: names(o),
          new: names(n),
          pointers: { old: at(before, o.index), new: at(after, n.index, scheme.name) },
        },
        n.index,
      );
    for (const scheme of removed)
      add(
        {
          aspect: `security-scheme ${scheme.name}`,
          verdict: securityVerdict(
            n.schemes.length > 0 ? `${label(scheme)} no longer required with ${labels(n)}` : `${label(scheme)} no longer required`,
            { lost: false, gained },
          ),
          old: names(o),
          new: names(n),
          pointers: { old: at(before, o.index, scheme.name), new: at(after, n.index) },
        },
        n.index,
      );
  }
  for (const o of gone)
    add(
      {
        aspect: `security-alternative ${names(o).join('+')}`,
        verdict: securityVerdict(`the alternative ${labels(o)} removed`, { lost: !accepted(o, news), gained: false }),
        old: names(o),
        pointers: { old: at(before, o.index), new: after.pointer },
      },
      o.index,
    );
  for (const n of come)
    add(
      {
        aspect: `security-alternative ${names(n).join('+')}`,
        verdict: securityVerdict(`${labels(n)} accepted as an alternative`, { lost: false, gained: !accepted(n, olds) }),
        new: names(n),
        pointers: { old: before.pointer, new: at(after, n.index) },
      },
      n.index,
    );
  return out;
}
