/**
 * nginx as the static-file reference: one worker process, sendfile on, no access log, and
 * keep-alive without a request limit (like the Node servers).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type RunningServer, startServer } from '../lib/processes.js';

export async function startNginx(root: string, core: number | undefined): Promise<RunningServer> {
  const prefix = join(root, '.nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
error_log stderr warn;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  types { application/octet-stream bin; }
  server {
    listen 127.0.0.1:${port};
    location /static/ { alias ${root}/; }
  }
}
`,
  );
  return startServer({ command: 'nginx', args: ['-p', prefix, '-c', conf], core, port });
}
