import { constants as osConstants } from 'node:os';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../config.js';
import { startBaton, type StartOptions } from '../app/baton-app.js';
import { consoleUrl } from '../server/console-route.js';
import { OFFLINE_TAGS } from '../providers/model/offline-assistant.js';

/**
 * A stray rejection or exception (a library callback, a handshake Baton did not foresee)
 * is logged, and Baton keeps serving: one bad connection must not take every thread down.
 * The state that matters is in SQLite, committed or not at all.
 */
function keepServing(logger: Logger): void {
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection; Baton keeps serving'),
  );
  process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception; Baton keeps serving'));
}

/**
 * `baton serve`: runs Baton until SIGTERM or SIGINT, then shuts down gracefully (a second
 * signal exits at once, code 128 + the signal's number). `options`
 * (what the offline scripted models answer) are for fixtures that wrap it.
 */
export async function serve(flags: Record<string, string | undefined>, options: StartOptions = {}): Promise<void> {
  const config = loadConfig(process.env, {
    host: flags.host,
    port: flags.port,
    dataDir: flags['data-dir'],
    token: flags.token,
    model: flags.model,
  });
  const logger = pino({ level: process.env.BATON_LOG_LEVEL ?? 'info' }, pino.destination(2));
  const app = await startBaton(config, logger, options);
  keepServing(logger);
  const say = (line = '') => process.stdout.write(`${line}\n`);
  say(`Baton is listening on ${app.url}`);
  // Printed, never logged: the token rides in the fragment, which the browser keeps to itself.
  say(`  console    ${consoleUrl(app.url, app.token)}`);
  say(`  data dir   ${config.dataDir}`);
  say(`  token      ${app.token}${config.token ? '' : `   (stored in ${config.dataDir}/token)`}`);
  if (config.allowedOrigins.length)
    say(`  origins    browsers may also connect from ${config.allowedOrigins.join(', ')}`);
  say(
    app.model.kind === 'scripted'
      ? `  model      offline scripted model at ${app.model.baseUrl} (no model endpoint configured: set BATON_CODEX_BASE_URL to use a real one)`
      : `  model      ${app.model.name} at ${app.model.baseUrl}`,
  );
  say(
    app.claudeModel.kind === 'scripted'
      ? `  claude     offline scripted Messages-API model at ${app.claudeModel.baseUrl} (set BATON_CLAUDE_BASE_URL to use a real one)`
      : `  claude     ${app.claudeModel.model} at ${app.claudeModel.baseUrl}`,
  );
  if (app.model.kind === 'scripted' || app.claudeModel.kind === 'scripted') {
    say();
    say('The offline models echo a message, and act on a tag at the start of one of its lines:');
    for (const [tag, what] of Object.entries(OFFLINE_TAGS)) say(`  ${tag.padEnd(10)} ${what}`);
  }
  say();
  say('Connect a client: socket.io to the URL above with auth { token }. See docs/protocol.md.');
  say('Try it:          npm run baton -- demo   (or: npm run baton -- --help)');
  logger.info({ url: app.url, model: app.model }, 'baton started');

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    // A second signal (Ctrl-C again) will not wait for the agents: Baton ends as a kill
    // would end it. Every committed fact stays, and the next start recovers the rest.
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting for the shutdown');
      process.exit(128 + osConstants.signals[signal]);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
