/**
 * The application the OpenAPI section documents: 200 routes in 50 resources (list, create, get,
 * update), each with zod validators for its body and query, `resourceExists`, an ETag
 * provider, `describe()` and `returns()`, half of them under a router with an authorization hook.
 */
import * as z from 'zod';
import { RestApplication, Router, silentLogger } from '../../src/index.js';

export const ROUTES = 200;

export function documentedApp(): RestApplication {
  const Item = z.object({ id: z.string(), name: z.string().min(1), tags: z.array(z.string()) });
  const app = new RestApplication({ logger: silentLogger })
    .validates('newItem', Item.omit({ id: true }))
    .validates('changes', Item.omit({ id: true }).partial())
    .validates('page', z.object({ limit: z.coerce.number().int().optional() }), {
      source: 'queryParams',
    })
    .resourceExists('item', ({ pathParams }) => ({ id: pathParams.id ?? '', name: 'x', tags: [] }));
  const guarded = new Router(app).authorized('user', ({ headers }) => headers.get('authorization'));
  for (let resource = 0; resource < ROUTES / 4; resource++) {
    const router = resource % 2 === 0 ? app : guarded;
    const base = `/r${resource}`;
    const tags = [`resource${resource}`];
    router
      .get(base, ({ page }) => [page])
      .describe({ summary: `List ${resource}`, tags })
      .returns(200, z.array(Item));
    router
      .post(base, ({ newItem }) => [newItem, 201])
      .describe({ summary: `Create ${resource}`, tags })
      .returns(201, Item);
    router
      .get(`${base}/{id}`, ({ item }) => item)
      .etag(({ item }) => item.id)
      .returns(200, Item);
    router
      .patch(`${base}/{id}`, ({ item, changes }) => ({ ...item, ...changes }))
      .etag(({ item }) => item.id)
      .returns(200, Item);
  }
  app.mount('/guarded', guarded);
  return app;
}
