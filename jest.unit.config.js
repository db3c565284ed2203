/** Unit tests only (`npm run test:unit`): no services needed, so no global service check. */
import base from './jest.config.js';

const { globalSetup: _servicesCheck, ...rest } = base;
export default { ...rest, roots: ['<rootDir>/tests/unit'] };
