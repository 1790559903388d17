import type { CrossScenario } from '../cross-scenario.js';
import { crossForkScenarios } from './cross-forks.js';
import { crossMergeScenarios } from './cross-merges.js';
import { crossSwitchScenarios } from './cross-switches.js';

/**
 * The cross-provider scenarios: several providers in one Baton, run live against each
 * provider's scripted model (which is how their transcripts are recorded) and replayed from
 * each provider's recorded processes.
 */
export const crossScenarios: readonly CrossScenario[] = [
  ...crossSwitchScenarios,
  ...crossForkScenarios,
  ...crossMergeScenarios,
];
