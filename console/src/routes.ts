import type { ComponentType } from 'preact';
import { ChartsView } from './charts/charts-view.js';
import { ReviewView } from './charts/review-view.js';
import { GraphView } from './graph/graph-view.js';
import { ThreadView } from './views/thread-view.js';
import { ThreadsView } from './views/threads-view.js';

/**
 * The console's pages, in one list: add a page here. `path` is matched against the hash
 * (`#/thread/thr_1/graph` -> `/thread/:threadId/graph`); the view gets the `:params` as
 * props. `tab` puts a link in the thread's header (for `/thread/:threadId/...` pages),
 * `nav` one in the top bar. The first route that matches wins.
 *
 * The charts and graph views register here:
 *   { path: '/thread/:threadId/graph', view: GraphView, tab: 'Graph' },
 *   { path: '/thread/:threadId/charts', view: ChartsView, tab: 'Charts' },
 *   { path: '/review', view: ReviewView, nav: 'Design review' },
 * A view reaches Baton through `useConsole()` and `useStream(spec)` (console/src/live/use-stream.ts;
 * specs in console/src/live/stream-specs.ts, `graphSpec(threadId)` among them).
 */
export interface ConsoleRoute {
  path: string;
  /** Gets the path's `:params` as props (each view declares the ones it takes). */
  view: ComponentType<any>;
  tab?: string;
  nav?: string;
}

export const routes: ConsoleRoute[] = [
  { path: '/threads', view: ThreadsView, nav: 'Threads' },
  { path: '/thread/:threadId', view: ThreadView, tab: 'Conversation' },
  { path: '/thread/:threadId/graph', view: GraphView, tab: 'Graph' },
  { path: '/thread/:threadId/charts', view: ChartsView, tab: 'Charts' },
  { path: '/review', view: ReviewView, nav: 'Design review' },
];
