/** The AWS JSON protocols' answers, as the stand-in writes them. */
import type { ServerResponse } from 'node:http';

export const jsonError = (res: ServerResponse, status: number, type: string, message: string) => {
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'x-amzn-query-error': `${type};Sender`,
  });
  res.end(JSON.stringify({ __type: type, message }));
};

export const jsonOk = (res: ServerResponse, body: unknown, contentType = 'application/x-amz-json-1.1') => {
  res.writeHead(200, { 'content-type': contentType });
  res.end(JSON.stringify(body));
};
