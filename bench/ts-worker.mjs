// A worker thread running a TypeScript module: tsx's loader is registered in this thread
// first (a worker does not inherit the main thread's), then the module named in
// `workerData.module` (a file URL) is imported.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
