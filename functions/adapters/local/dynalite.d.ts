/** Ambient declarations for the packages of the embedded servers, which ship no types. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when omitted. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
    ssl?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}

declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: string[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    /** A new HTTP server serving the store, listening with `server.listen`'s arguments (e.g. a socket path). */
    listen(...args: unknown[]): Promise<Server>;
    /** The server `run` listens on; `close` closes it. */
    httpServer: Server | undefined;
    close(): Promise<void>;
    reset(): void;
  }
  export default S3rver;
}
