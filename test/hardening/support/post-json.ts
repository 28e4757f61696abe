/** A POST of a JSON body with a bearer token over a given keep-alive agent (node:http, no fetch pool). */
import { request, type Agent } from 'node:http';
import type { Socket } from 'node:net';

export interface PostAnswer {
  status: number;
  body: string;
  /** The connection the answer came on (to count the sockets a burst used). */
  socket: Socket;
}

export function postJson(agent: Agent, base: URL, path: string, body: string, token: string): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path,
        agent,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, socket: req.socket as Socket }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
