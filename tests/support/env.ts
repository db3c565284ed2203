/** Service addresses for tests: the same variables Kairos reads, with the same defaults. */
export const MONGO_URL = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/kairos';
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** A fixed secret for tokens minted by tests; never used outside them. */
export const TEST_JWT_SECRET = 'kairos-test-secret-not-for-production';
/** The PostgreSQL server behind FerretDB, for tests that start a FerretDB of their own (as scripts/chaos.sh does). */
export const POSTGRES_SERVER = process.env.FERRETDB_POSTGRESQL_SERVER || 'postgres://postgres@127.0.0.1:5432';
/** The local three-master Redis Cluster scripts/redis-cluster.sh starts (services.sh runs it when the test scripts ask: KAIROS_REDIS_CLUSTER=1), as REDIS_CLUSTER_NODES. */
export const REDIS_CLUSTER_NODES = process.env.KAIROS_TEST_REDIS_CLUSTER_NODES || '127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003';
