import type { Server } from 'node:http';

export declare const ECHO_BODY: string;
export declare const SERVERS: Readonly<Record<string, () => Promise<Server>>>;
