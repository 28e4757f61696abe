/** Builds the exact bytes of an HTTP/1.1 request, including ones no HTTP client would send. */
export type HeaderList = [name: string, value: string | Buffer][];

export interface RequestSpec {
  method: string;
  target: string | Buffer;
  headers?: HeaderList;
  body?: Buffer | string;
  /** Content-Length to declare; default: the body's length (none without a body); `null`: no header. */
  contentLength?: number | null;
}

/** Request line, `Host`, `Connection: close`, the given headers, Content-Length, then the body. */
export function requestBytes(spec: RequestSpec): Buffer {
  const body = spec.body === undefined ? undefined : Buffer.isBuffer(spec.body) ? spec.body : Buffer.from(spec.body, 'utf8');
  const lines: Buffer[] = [
    Buffer.from(`${spec.method} `, 'latin1'),
    Buffer.isBuffer(spec.target) ? spec.target : Buffer.from(spec.target, 'latin1'),
  ];
  lines.push(Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n', 'latin1'));
  for (const [name, value] of spec.headers ?? []) {
    lines.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n'));
  }
  const length = spec.contentLength === undefined ? body?.length : spec.contentLength;
  if (length !== undefined && length !== null) lines.push(Buffer.from(`Content-Length: ${length}\r\n`, 'latin1'));
  lines.push(Buffer.from('\r\n'));
  if (body) lines.push(body);
  return Buffer.concat(lines);
}
