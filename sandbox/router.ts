/** Matches request paths to the operations of the endpoint catalog (case-insensitive literals). */
import type { OperationSpec } from '../functions/accounting/endpoints.js';

interface CompiledRoute {
  op: OperationSpec;
  segments: { literal?: string; param?: string }[];
  score: number[];
}

export interface RouteMatch {
  op: OperationSpec;
  params: Record<string, string>;
}

export type RouteResult =
  | { kind: 'match'; match: RouteMatch }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' };

export class Router {
  private readonly routes: CompiledRoute[];

  constructor(operations: Iterable<OperationSpec>) {
    this.routes = [...operations].map((op) => {
      const segments = op.path
        .split('/')
        .slice(1)
        .map((s) => {
          const m = /^\{(\w+)\}$/.exec(s);
          return m ? { param: m[1] as string } : { literal: s.toLowerCase() };
        });
      return { op, segments, score: segments.map((s) => (s.literal !== undefined ? 1 : 0)) };
    });
  }

  match(method: string, pathname: string): RouteResult {
    let parts: string[];
    try {
      parts = pathname.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return { kind: 'none' };
    }
    const candidates: { route: CompiledRoute; params: Record<string, string> }[] = [];
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i] as { literal?: string; param?: string };
        const part = parts[i] as string;
        if (seg.literal !== undefined) ok = seg.literal === part.toLowerCase();
        else params[seg.param as string] = part;
      }
      if (ok) candidates.push({ route, params });
    }
    if (candidates.length === 0) return { kind: 'none' };
    const best = (list: typeof candidates) =>
      [...list].sort((a, b) => {
        for (let i = 0; i < a.route.score.length; i++) {
          const d = (b.route.score[i] ?? 0) - (a.route.score[i] ?? 0);
          if (d !== 0) return d;
        }
        return 0;
      })[0];
    const withMethod = candidates.filter((c) => c.route.op.method === method);
    const chosen = best(withMethod);
    if (chosen) return { kind: 'match', match: { op: chosen.route.op, params: chosen.params } };
    return { kind: 'method', allowed: [...new Set(candidates.map((c) => c.route.op.method))] };
  }
}
