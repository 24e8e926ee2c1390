/**
 * `npm run test:cluster`: the fault suite (test/cluster/) on a 3-node OpenSearch cluster it starts
 * itself (bin/dev/opensearch-cluster.ts), apart from `npm test`: three JVMs and their restarts take
 * minutes a shared CI machine does not have to spare on every run (bench/README.md records runs).
 */
const base = require('./jest.config.js');
const { testMatch: _unit, displayName: _name, ...common } = base.projects[0];

module.exports = {
  testTimeout: 1_200_000,
  projects: [{ ...common, displayName: 'cluster', testMatch: ['<rootDir>/test/cluster/**/*.test.ts'] }],
};
