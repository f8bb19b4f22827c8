// fast-check global configuration: a fixed seed in CI keeps the suite reproducible; FC_SEED overrides.
import fc from 'fast-check';

const seedText = process.env['FC_SEED'];
const seed = seedText === undefined ? 0x5eed : Number.parseInt(seedText, 10);
fc.configureGlobal({ seed, numRuns: 100 });
