import { join } from 'node:path';
import type { ProviderCapabilities } from '../../domain/capabilities.js';
import { ensureFileContent, ensurePrivateDir, readFileOrNull } from '../../persistence/private-file.js';
import { acpAgentFeatures, acpCapabilities } from './acp-capabilities.js';

/**
 * Each agent's declaration, computed from the last `initialize` one of its processes
 * answered, kept in the data dir (`acp/<agent>/initialize.json`) so that a restarted Baton
 * decides by it (a fork's strategy, a thread's flags) before the agent runs again. Every
 * new process's answer replaces it; an unreadable file counts as never negotiated.
 */
export class AcpNegotiations {
  private readonly declared = new Map<string, ProviderCapabilities>();

  constructor(private readonly dataDir: string) {}

  /** Records what an agent's process answered to `initialize`. */
  remember(agent: string, initialize: unknown): void {
    this.declared.set(agent, acpCapabilities(acpAgentFeatures(initialize)));
    const dir = ensurePrivateDir(join(ensurePrivateDir(join(this.dataDir, 'acp')), agent));
    ensureFileContent(join(dir, 'initialize.json'), JSON.stringify(initialize));
  }

  /** The agent's declaration from its last negotiation (in this Baton or an earlier one), or null. */
  declarationOf(agent: string): ProviderCapabilities | null {
    const known = this.declared.get(agent);
    if (known) return known;
    const stored = readFileOrNull(join(this.dataDir, 'acp', agent, 'initialize.json'));
    if (stored === null) return null;
    try {
      const declared = acpCapabilities(acpAgentFeatures(JSON.parse(stored)));
      this.declared.set(agent, declared);
      return declared;
    } catch {
      return null;
    }
  }
}
