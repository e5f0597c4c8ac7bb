/** What the functions ask of tracing: `lambda-tracer.ts` (X-Ray) and `untraced.ts` both provide it. */
export interface ClientTracing {
  /** The entry point, wrapped so that each invocation is traced as `name`. */
  tracedHandler<E, C, R>(
    name: string,
    handler: (event: E, context: C) => Promise<R>,
  ): (event: E, context: C) => Promise<R>;
  /** The AWS SDK v3 client, its calls traced. */
  instrumentClient<T>(client: T): T;
}
