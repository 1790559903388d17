import { afterAll, afterEach, beforeAll } from 'vitest';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';

/** The scripted model for a vitest file: started once, its script cleared after each test, stopped at the end. */
export function useScriptedModel(): ScriptedModelServer {
  const model = new ScriptedModelServer();
  beforeAll(async () => {
    await model.start();
  });
  afterEach(() => model.reset());
  afterAll(() => model.stop());
  return model;
}
