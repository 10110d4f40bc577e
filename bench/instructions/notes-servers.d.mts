import type { Server } from 'node:http';

export declare const ORIGIN: string;
export declare const TOKEN: string;
export declare const NOTE_BODY: string;
export declare const NOTES_REQUESTS: Readonly<Record<'notes-post' | 'notes-get', string>>;
export declare const NOTES_SERVERS: Readonly<Record<string, () => Promise<Server>>>;
export declare function recordOne(server: Server, request: string): Promise<string>;
export declare const SERVERS: typeof NOTES_SERVERS;
export declare const REQUESTS: typeof NOTES_REQUESTS;
