import { z } from 'zod';

// Zod probes `new Function` to compile its parsers; under the console's CSP (no eval) the
// probe is refused and reported as a violation. Jitless parsing never probes.
z.config({ jitless: true });
