# One image for the production processes: `npm run api`, `npm run worker` and the `npm run migrate` step.
# The Node version CI tests with (.ci/node24).
FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY core ./core
COPY contracts ./contracts
COPY db ./db
COPY activities ./activities
COPY workflows ./workflows
COPY operations ./operations
COPY worker ./worker
COPY api ./api
COPY dev ./dev
COPY main ./main
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
