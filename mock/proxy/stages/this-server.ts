/**
 * The proxy's own target check, right after the shared target stage: an absolute-form target must name
 * this proxy, not another server (421): it forwards only to its --proxy URL, it is no forward proxy.
 */
import { namesThisServer, type HostPolicy } from '../../host.js';
import type { Stage } from '../../pipeline.js';
import { problem } from '../../problems.js';
import type { TargetedExchange } from '../../stages/exchange.js';
import { escapeControlsUnicode } from '../../../redaction/redactor.js';

export interface ThisServerStageDeps {
  hosts: HostPolicy;
}

export function thisServerStage<X extends TargetedExchange>(deps: ThisServerStageDeps): Stage<X> {
  const { hosts } = deps;
  return {
    name: 'target names this proxy',
    run(x) {
      const target = x.target;
      if (target.authority !== undefined && !namesThisServer(hosts, target.scheme ?? '', target.authority, x.req.socket)) {
        throw problem(
          'misdirectedRequest',
          `The target names ${escapeControlsUnicode(`${target.scheme ?? ''}://${target.authority}`).slice(0, 100)}, not this proxy: it forwards only to its --proxy URL (it is no forward proxy); send the path alone ("GET /path HTTP/1.1").`,
        );
      }
      return x;
    },
  };
}
