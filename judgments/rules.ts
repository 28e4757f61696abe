/**
 * The rules the checks enforce, quoted from the contract's "Spec-level facts" and profile table
 * (`contract/README.md`). A check names one of these.
 */
export const SPEC = {
  operations: 'Spec fact 1: the three operations exist at exactly these methods and paths; `number` is the order number, URL-encoded.',
  auth: 'Spec fact 2: every operation requires bearer credentials: a request without an Authorization header, with a non-Bearer scheme, or with a token the server does not accept gets no 2xx answer.',
  orderInfo:
    'Spec fact 3: a 2xx order-info answer is `application/json`: an object with the members `order` (object), `containers` (array of objects), `charges` (array of objects), `lots` (array of objects); every listed field that is present has the listed JSON type.',
  exactOrder:
    'Spec fact 3: `order.orderNumber` equals the requested number (the response describes exactly one order, the one identified by `number`).',
  lotTransfer:
    'Spec fact 4: a 2xx lot-transfer answer is `application/json`, a Lot transfer object (types as listed) that is the created transfer: the members the client sent (`fk_lot_id`, `source_scancode`, `target_scancode`, `amount`, and `completed`, `lotnumber` when sent) come back with the same values.',
  testSample:
    'Spec fact 5: a 2xx test-sample answer is `application/json`, a Test sample object (types as listed) that is the created sample: the members the client sent (`fk_lot_id`, `fk_user_id`, and `lotnumber`, `sample_number`, `status`, `notes` when sent) come back with the same values.',
  created:
    'Spec (resources; the contract for a create the specification does not show): a 2xx create answer is `application/json`, an object of the schema the contract answers (types as listed) that is the created record: the members the client sent come back with the same values.',
  invalidRequest:
    'Spec (resources): the created object has the listed types (and keeps every specification-level keyword of the contract): a body breaking them is refused, or answered with a created object that keeps to them; never created and answered as sent.',
  validRequest:
    'Spec fact 6: a valid, authenticated request to each operation (an existing order; a body whose `fk_lot_id` is a lot of that order) is answered 2xx.',
  contentCoding:
    'Spec (HTTP, RFC 9110 §8.4, §12.5.3): an answer reads as sent: its body decodes by the content codings its `Content-Encoding` names (gzip, deflate = zlib, br), and a request that lists the codings it accepts (`Accept-Encoding`) gets none other.',
} as const;

export const PROFILE = {
  orderInfoSuccess: 'Profile: order info success is 200 `application/json`.',
  createSuccess: 'Profile: create success is 201 `application/json`, the created object.',
  unknownOrder: 'Profile: an unknown order number is answered 404.',
  unauthorized:
    'Profile: missing credentials, a scheme the operation does not accept, a rejected credential → 401 with a `WWW-Authenticate` challenge of the operation\'s HTTP scheme (`Bearer`, RFC 6750: `error="invalid_token"` for a rejected token; `Basic`, RFC 7617; none required for API keys alone).',
  mediaType:
    'Profile: a request body not `application/json` (charset parameter allowed), or sent with no `Content-Type` at all, is answered 415.',
  malformed: 'Profile: malformed JSON, or JSON that is not an object, is answered 400.',
  schema:
    'Profile: a body that breaks the schema (wrong type, missing required member, unknown member, out of bounds) is answered 400; validation errors add `errors: [{ "pointer": "/amount", "detail": "..." }]`, one entry per problem, `pointer` an RFC 6901 JSON Pointer into the request body.',
  unknownLot:
    'Profile: a well-formed body whose `fk_lot_id` names no known lot is answered 422 (a validation error: `errors[].pointer` names the member).',
  tooLarge: 'Profile: a body over 1 MiB is answered 413, whether framed by `Content-Length` or chunked.',
  bodyAccepted:
    'Profile: a valid body up to 1 MiB (`x-max-body-bytes` of the 413 answer) is accepted, whatever limits the server stack has by default (100 KiB, 1 MB).',
  wrongMethod: 'Profile: a known path with a wrong method is answered 405 with an `Allow` header.',
  unknownPath: 'Profile: an unknown path is answered 404.',
  pathVariants:
    "Profile: an operation is served at exactly its path. A near miss of it (a trailing slash, another letter case, another version segment, a doubled slash: each another path, RFC 3986 §6.2.2.1) is an unknown path, answered 404 (405 where the server has operations of its own there), never redirected to the operation's path and never answered as the operation.",
  problem:
    'Profile: every error is `application/problem+json` (RFC 9457): `type`, `title`, `status`, `detail` (and `status` is the HTTP status).',
  readOnly:
    'Profile: `id`, `created`, `modified` are `readOnly`: the server assigns them; values a client sends are ignored, not rejected.',
  defaults:
    'Profile: defaults when omitted: `completed` false; `lotnumber` = the lot\'s `lotNumber`; `sample_number` generated, unique; `status` "NEW"; `notes` "".',
  responses: 'Profile: responses have every listed field present; ids are unique per resource.',
  formats:
    "Profile: `orderDate`, `deliveryDate` are RFC 3339 full-dates; `createdAt`, `created`, `modified` RFC 3339 date-times (by the RFC's grammar); every listed field present.",
  documentedStatus:
    'Profile: every answer has a status the contract documents for the operation (order info 200, creates 201; errors 400/401/404/405/413/415/422).',
  noServerError: 'Profile: no request the suite sends is answered 5xx; every request it sends has a profile answer (2xx or 4xx).',
  charset: 'Profile: a request body `application/json` with a charset parameter is accepted.',
  contentCoding:
    'Profile: an answer has a content coding only when the request asked for one (`Accept-Encoding`); a request without it gets the plain body.',
} as const;

/**
 * The rules of a record's life across exchanges (`records.ts`): the contract's operations on a resource
 * as HTTP means them (RFC 9110 §9.3, RFC 7396) and `x-action`, and the profile's statuses and filters.
 */
export const RECORDS = {
  readBack:
    "Contract (resources; RFC 9110 §9.3.1): a read of a record the client created answers that record, equal to the create's answer but for the members the server stamps (`readOnly`).",
  unknownKey: 'Contract (resources): a key never created, or deleted, names no record: no 2xx answer (strict: 404).',
  listFilters:
    "Profile (resources): a list's query parameters named like a member of its records are equality filters: the list answers exactly the records whose members equal every filter given (none that breaks one, every one the client created that matches).",
  listPaging:
    'Profile (resources): a paged list answers at most `limit` records, and the next page (`offset` + `limit`) holds other records.',
  change:
    'Contract (resources; RFC 7396 merge patch, RFC 9110 §9.3.4 PUT): a change the server accepts sticks: its answer and a later read show the members sent with the values sent and every other member as it was (server stamps aside; a replace may reset the members it omits).',
  refusedChange:
    'Contract (resources): an invalid change is refused (no 2xx; strict: 400) and changes nothing: a later read shows the record as before.',
  action:
    'Contract (`x-action`): an action asked of a record with the members it requires is accepted and sets the members it declares; a later read shows them.',
  actionConflict:
    'Contract (`x-action`): an action asked of a record without the members it requires (the same action again) is refused (no 2xx; strict: 409) and changes nothing.',
  delete:
    'Contract (resources; RFC 9110 §9.3.5): a record deleted (2xx) is gone: a later read and a second delete of it get no 2xx (strict: 404 each).',
  uniqueKeys: 'Profile: ids are unique per resource, also across deletes: a create after a delete never takes a key handed out before.',
  duplicateKey: 'Contract (resources): a create whose key (chosen by the client) a record already has is refused (no 2xx; strict: 409).',
  answers:
    'Contract (resources): every answer to an operation on records (a read, a list, a change, an action, a delete) is of the media type and schema the contract documents for its status (spec: the 2xx answers, the listed types; strict: every answer has a documented status, every keyword).',
  documented:
    'Contract (any operation): a valid, authenticated request to an operation is answered as the contract documents it (spec: a 2xx answer of a documented media type and schema, the listed types; strict: a documented status, every keyword).',
} as const;

/**
 * What a client's request must be (for judging traffic a client sent, e.g. through the validating
 * proxy): the specification's endpoints and bearer authentication, and at strict the profile's schemas.
 */
export const REQUEST = {
  operation: SPEC.operations,
  bearer:
    "Spec (Authentication): every operation requires bearer credentials: `Authorization: Bearer <token>` (RFC 6750 b64token); an operation the contract secures otherwise, the credentials of its security in each scheme's syntax (Basic: RFC 7617; an API key where its scheme says).",
  mediaType:
    'Spec (endpoints 2, 3): the request body of a create is `application/json` (a charset parameter naming UTF-8 is allowed; JSON text is UTF-8, RFC 8259 §8.1).',
  json: 'Spec (endpoints 2, 3): the request body of a create is JSON.',
  schema:
    "Spec (resources), profile at strict: the request body is an object of the listed types (strict: the profile's required members, no unknown member, bounds).",
} as const;
