/**
 * The path and query parameters of an operation, read and checked against their schemas in the
 * contract: each value is taken as the type its schema states (an integer, a number, a boolean, else a
 * string) and validated; a value that breaks its schema is a 400 `invalid-parameter` naming it.
 * Query parameters the contract does not list are ignored, as servers do.
 */
import type { JsonValue, OperationSpec } from '../contract/document.js';
import type { OperationModel } from '../contract/operations-model.js';
import type { CompiledContract, Validator } from '../contract/schemas.js';
import { problem } from './problems.js';

interface ParamCheck {
  name: string;
  in: 'path' | 'query';
  type: string | undefined;
  required: boolean;
  default?: JsonValue;
  validate: Validator;
}

export type ParamReader = (path: Readonly<Record<string, string>>, search: string) => Record<string, JsonValue>;

/** A value as its schema's type: undefined when it cannot be one. */
function typed(raw: string, type: string | undefined): JsonValue | undefined {
  if (type === 'integer') return /^-?\d{1,16}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
  if (type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined;
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  return raw;
}

/** The reader of an operation's path and query parameters (validators compiled now, at start-up). */
export function paramReader(compiled: CompiledContract, spec: OperationSpec, model: OperationModel): ParamReader {
  const checks: ParamCheck[] = spec.parameters.flatMap((p): ParamCheck[] => {
    if ((p.in !== 'path' && p.in !== 'query') || p.schema === undefined) return [];
    const known = model.params.find((m) => m.name === p.name && m.in === p.in);
    const fallback = known?.schema['default'];
    return [
      {
        name: p.name,
        in: p.in,
        type: known?.type,
        required: p.required || p.in === 'path',
        ...(fallback !== undefined ? { default: fallback } : {}),
        validate: compiled.validator(p.schema),
      },
    ];
  });
  if (checks.length === 0) return () => ({});
  return (path, search) => {
    const query = search.length > 1 ? new URLSearchParams(search.slice(1)) : undefined;
    const values: Record<string, JsonValue> = {};
    for (const check of checks) {
      const raw = check.in === 'path' ? path[check.name] : (query?.get(check.name) ?? undefined);
      if (raw === undefined) {
        if (check.required) throw problem('invalidParameter', `The ${check.in} parameter "${check.name}" is required; send it.`);
        if (check.default !== undefined) values[check.name] = check.default;
        continue;
      }
      const value = typed(raw, check.type);
      const shown = JSON.stringify(raw.slice(0, 100));
      if (value === undefined)
        throw problem(
          'invalidParameter',
          `The ${check.in} parameter "${check.name}" must be ${check.type === 'integer' ? 'an' : 'a'} ${check.type ?? 'value'}, not ${shown}.`,
        );
      const errors = check.validate(value);
      if (errors.length > 0)
        throw problem('invalidParameter', `The ${check.in} parameter "${check.name}" ${shown} ${errors.map((e) => e.detail).join('; ')}.`);
      values[check.name] = value;
    }
    return values;
  };
}
