# The dashboard's static build (web/ → web/dist, docs/dashboard.md): the runtime image keeps only its output.
FROM node:20-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY web ./web
COPY scripts/buildWeb.ts ./scripts/
RUN npx tsx scripts/buildWeb.ts

# One image for every role: the API (`npm run api`), the worker (`npm run worker`) and the inbound SMTP server (`npm run inbound`) and the SMTP submission server (`npm run submission`).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# glibc keeps a malloc arena per thread (the SDK's native threads, libuv's pool): two are enough and
# return memory a burst took (docs/deployment.md, "Worker memory when many executions wait").
ENV MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY lib ./lib
COPY db ./db
COPY api ./api
COPY activities ./activities
COPY services ./services
COPY temporal ./temporal
COPY worker ./worker
COPY inbound ./inbound
COPY submission ./submission
COPY mcp ./mcp
COPY scripts ./scripts
COPY --from=web /app/web/dist ./web/dist
# Workers load this bundle instead of running webpack at every start (worker/workflowBundle.ts).
RUN npx tsx scripts/buildWorkflows.ts
EXPOSE 3000
CMD ["npm", "run", "api"]
