/**
 * `--goaway-chance`, after the original's WithProbabilisticGoaway: an
 * HTTP/2 request's response asks, with that probability, for the connection
 * to close (Connection: close, which the node front end turns into a GOAWAY
 * once the answer is on its way: streams already open finish, new ones go to
 * a new connection). Clients behind a load balancer that holds HTTP/2
 * connections for hours thus reconnect now and then and spread over the
 * servers. HTTP/1.1 connections are left alone, as in the original.
 */
import type { Filter } from '../context.ts';
import { trackedResponse } from './tracked-response.ts';

export function withGoaway(chance: number, random: () => number = Math.random): Filter | undefined {
  if (!(chance > 0)) return undefined;
  return (ctx, next) => {
    if (ctx.req.protocol === 'h2' && random() < chance) trackedResponse(ctx).closeConnection = true;
    return next(ctx);
  };
}
