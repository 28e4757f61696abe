/**
 * The mock's exchange, phase by phase: each phase is what the stages before it have learned, so a
 * stage takes the phase it needs and the list that skips the stage giving it does not compile.
 *
 * `MockExchange` (the one object per request, every slot there and empty) → target stage
 * (`TargetedExchange`) → route (`RoutedExchange`: the operation served, its path parameters) →
 * security → validate (`ValidatedExchange`: the checked input) → prefer, faults and latency
 * (`PreferredExchange`: the preference, the fault to inject) → answer.
 */
import type { Injection } from '../fault-stage.js';
import type { Preference } from '../prefer.js';
import type { Served } from '../served.js';
import type { RequestExchange, TargetedExchange } from './exchange.js';

export interface MockExchange extends RequestExchange {
  served: Served | undefined;
  params: Record<string, string>;
  /** The validate stage ran: `input` is the operation's checked input. */
  validated: boolean;
  input: unknown;
  preference: Preference | undefined;
  /** The fault to inject (`Prefer: fault=` or a session rule), if any. */
  injection: Injection | undefined;
}

export type RoutedExchange = TargetedExchange<MockExchange> & { served: Served };
export type ValidatedExchange = RoutedExchange & { validated: true };
export type PreferredExchange = ValidatedExchange & { preference: Preference };

const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The exchange of a request before any stage ran: a literal of one shape (no spread), built once per request. */
export function mockExchange(req: MockExchange['req'], res: MockExchange['res']): MockExchange {
  return {
    req,
    res,
    target: undefined,
    host: undefined,
    pathname: '',
    method: req.method ?? 'GET',
    served: undefined,
    params: NO_PARAMS,
    validated: false,
    input: undefined,
    preference: undefined,
    injection: undefined,
  };
}

/** Writes the route stage's findings: from here on the exchange is routed. */
export function routed(x: TargetedExchange<MockExchange>, served: Served, params: Record<string, string>): asserts x is RoutedExchange {
  x.served = served;
  x.params = params;
}

/** Writes the validate stage's finding: from here on the exchange holds the checked input. */
export function validated(x: RoutedExchange, input: unknown): asserts x is ValidatedExchange {
  x.input = input;
  x.validated = true;
}

/** Writes the prefer stage's findings: from here on the exchange knows how it is to be answered. */
export function preferred(x: ValidatedExchange, preference: Preference, injection: Injection | undefined): asserts x is PreferredExchange {
  x.preference = preference;
  x.injection = injection;
}
