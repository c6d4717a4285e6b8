import { route } from '../route';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import { notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { TopicCreate, TopicListOut, TopicOut, TopicUpdate } from '../schemas/topics';
import { createTopic, deleteTopic, listTopics, updateTopic } from '../../db/topics';
import { presentTopic } from '../presenters/topics';
import { referencePaths } from '../../services/stepReferences';

const common = { auth: 'secret', tag: 'topics', resource: 'Topic' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/topics',
    summary: "The project's topics, oldest first",
    responses: { 200: { description: 'every topic', schema: TopicListOut } },
    async handler(ctx, { project }) {
      return { data: (await listTopics(ctx.deps.knex, project.id)).map(presentTopic) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/topics',
    audit: 'topic.create',
    summary: 'Create a topic; 409 when the given slug is taken',
    body: TopicCreate,
    responses: { 201: { description: 'the topic', schema: TopicOut } },
    async handler(ctx, { body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createTopic(trx, project.id, body),
        (t) => ({ projectId: project.id, action: 'topic.create', target: { type: 'topic', id: t.id }, details: { name: t.name, slug: t.slug } }),
      );
      ctx.status = 201;
      return presentTopic(row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/topics/:id',
    audit: 'topic.update',
    summary: "Change a topic's name, description, default or visibility (the slug is fixed)",
    params: IdParams,
    body: TopicUpdate,
    responses: { 200: { description: 'the topic', schema: TopicOut } },
    async handler(ctx, { params, body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateTopic(trx, project.id, params.id, body),
        (t) => t && { projectId: project.id, action: 'topic.update', target: { type: 'topic', id: t.id }, details: { changed: changedKeys(body) } },
      );
      if (!row) throw notFound('Topic');
      return presentTopic(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/topics/:id',
    audit: 'topic.delete',
    responses: { 204: { description: 'deleted' } },
    summary: "Delete a topic and every contact's state of it; 409 while an unfinished campaign or a SEND_EMAIL step names it",
    params: IdParams,
    async handler(ctx, { params, project }) {
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteTopic(trx, project.id, params.id, referencePaths('topic')),
        (ok) => ok && { projectId: project.id, action: 'topic.delete', target: { type: 'topic', id: params.id } },
      );
      if (!deleted) throw notFound('Topic');
      ctx.status = 204;
    },
  }),
];
