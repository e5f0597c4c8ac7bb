/**
 * API Gateway's HTTP API as the template configures it: a request reaches a route only through a
 * stage of the API (`$default` serves the root; a named stage serves `/<stage>/…`; without a
 * stage nothing serves the API), and the route's Lambda proxy integration passes it on in its
 * `PayloadFormatVersion` (1.0 or 2.0), through the function's resource policy with the route as
 * `aws:SourceArn`. Every answer says which API, stage, route and payload format served it.
 */
import { randomUUID } from 'node:crypto';
import { ACCOUNT, type Assembly, type Json, REGION } from './assembly.js';
import type { AwsStandIn } from './aws-stand-in.js';
import type { Authorizer } from './iam.js';
import type { FunctionInfo, InvokeResult, LambdaHost } from './lambda-host.js';

type Invoke = (fn: FunctionInfo, event: unknown, trigger: string) => Promise<InvokeResult>;

/** A request to the HTTP API, as API Gateway passes it on; the answer says what served it (`via`). */
export type HttpCall = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number; body: string; error?: InvokeResult['error']; via?: string }>;

const serverError = '{"message":"Internal Server Error"}';

function payload(
  version: string,
  p: Json,
  ctx: {
    method: string;
    url: URL;
    headers: Record<string, string>;
    body: string;
    stage: string;
    apiId: string;
    params: Record<string, string>;
  },
) {
  const host = `${ctx.apiId}.execute-api.${REGION}.amazonaws.com`;
  const headers: Record<string, string> = {
    ...ctx.headers,
    'content-length': String(Buffer.byteLength(ctx.body)),
    host,
  };
  const query = Object.fromEntries(ctx.url.searchParams);
  if (version === '1.0') {
    return {
      version: '1.0',
      resource: String(p.RouteKey).split(' ')[1],
      path: ctx.url.pathname,
      httpMethod: ctx.method,
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      queryStringParameters: Object.keys(query).length > 0 ? query : null,
      multiValueQueryStringParameters: null,
      requestContext: {
        accountId: ACCOUNT,
        apiId: ctx.apiId,
        domainName: host,
        httpMethod: ctx.method,
        path: ctx.url.pathname,
        protocol: 'HTTP/1.1',
        requestId: randomUUID(),
        requestTimeEpoch: Date.now(),
        resourcePath: String(p.RouteKey).split(' ')[1],
        stage: ctx.stage,
        identity: { sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      },
      pathParameters: Object.keys(ctx.params).length > 0 ? ctx.params : null,
      stageVariables: null,
      body: ctx.body,
      isBase64Encoded: false,
    };
  }
  return {
    version: '2.0',
    routeKey: p.RouteKey,
    rawPath: ctx.url.pathname,
    rawQueryString: ctx.url.search.slice(1),
    headers,
    requestContext: {
      accountId: ACCOUNT,
      apiId: ctx.apiId,
      domainName: host,
      http: {
        method: ctx.method,
        path: ctx.url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: p.RouteKey,
      stage: ctx.stage,
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    pathParameters: ctx.params,
    body: ctx.body,
    isBase64Encoded: false,
  };
}

export function httpApi(
  assembly: Assembly,
  authorizer: Authorizer,
  standIn: AwsStandIn,
  lambda: LambdaHost,
  invoke: Invoke,
): HttpCall {
  return async (method, path, headers, body) => {
    const apis = assembly.byType('AWS::ApiGatewayV2::Api');
    const notFound = (via: string) => ({ status: 404, body: '{"message":"Not Found"}', via });
    for (const api of apis) {
      const stages = assembly
        .byType('AWS::ApiGatewayV2::Stage')
        .filter((st) => assembly.props(st).ApiId === api.ref);
      if (stages.length === 0) return notFound(`${api.logicalId} has no Stage: nothing serves the API`);
      const url = new URL(path, 'https://api.local');
      for (const stage of stages) {
        const stageName = String(assembly.props(stage).StageName);
        const prefix = stageName === '$default' ? '' : `/${stageName}`;
        if (prefix && !url.pathname.startsWith(`${prefix}/`)) continue;
        const routePathname = url.pathname.slice(prefix.length);
        for (const route of assembly.byType('AWS::ApiGatewayV2::Route')) {
          const p = assembly.props(route);
          if (p.ApiId !== api.ref) continue;
          const [routeMethod, routePath] = String(p.RouteKey).split(' ') as [string, string];
          const names: string[] = [];
          const regex = new RegExp(
            `^${routePath.replace(/\{(\w+)\}/g, (_, n: string) => {
              names.push(n);
              return '([^/]+)';
            })}$`,
          );
          const match = regex.exec(routePathname);
          if (!match || (routeMethod !== 'ANY' && routeMethod !== method)) continue;
          const integrationId = String(p.Target).replace(/^integrations\//, '');
          const integrationResource = assembly.resources.find((r) => r.ref === integrationId);
          if (!integrationResource)
            return {
              status: 500,
              body: serverError,
              via: `${route.logicalId} Target ${p.Target}: no such integration`,
            };
          const integration = assembly.props(integrationResource);
          const version = String(integration.PayloadFormatVersion);
          const via = `${api.logicalId} stage ${stageName} → ${route.logicalId} ${p.RouteKey} → ${integrationResource.logicalId} PayloadFormatVersion ${version}`;
          const fn = lambda.byArnOrName(integration.IntegrationUri);
          const sourceArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${api.ref}/${stageName}/${method}${routePath}`;
          const decision = await authorizer.authorize(
            standIn.servicePrincipal('apigateway.amazonaws.com'),
            'lambda:InvokeFunction',
            fn.arn,
            {
              'aws:SourceArn': sourceArn,
            },
          );
          if (decision.decision !== 'Allowed') return { status: 500, body: serverError, via };
          const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
          const params = Object.fromEntries(
            names.map((n, i) => [n, decodeURIComponent(match[i + 1] as string)]),
          );
          const event = payload(version, p, {
            method,
            url,
            headers: lower,
            body,
            stage: stageName,
            apiId: api.ref,
            params,
          });
          const result = await invoke(fn, event, `http ${method} ${path}`);
          if (!result.ok)
            return { status: 500, body: serverError, via, ...(result.error ? { error: result.error } : {}) };
          const r = result.result as Json;
          if (r && typeof r === 'object' && 'statusCode' in r)
            return { status: r.statusCode, body: String(r.body ?? ''), via };
          return { status: 200, body: JSON.stringify(r), via };
        }
      }
      return notFound(
        `${api.logicalId}: no route of its stages (StageName ${stages.map((st) => assembly.props(st).StageName).join(', ')}) serves ${method} ${path}`,
      );
    }
    return notFound('no HTTP API in the template');
  };
}
