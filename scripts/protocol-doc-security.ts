import { PAYLOAD_MAX_BYTES, TRANSPORT_MAX_BYTES } from '../src/server/limits.js';

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;

/** The hand-written part of docs/protocol.md: the security model and the limits. */
export function securityAndLimits(): string[] {
  return [
    '## Security',
    '',
    '- **Loopback.** Baton listens on `BATON_HOST` (`127.0.0.1` by default) and talks to its model endpoint and its agents on 127.0.0.1.',
    '- **Token.** Every Socket.IO connection carries `auth: { token }`. It is compared as SHA-256 digests in constant time, so no token (of any length or encoding) can make the check fail differently. A missing or wrong token (or an `auth` that is not an object) is a `connect_error` whose `data` is `{ code: "unauthorized", message }`; Baton keeps serving. The token is `BATON_TOKEN`, or one generated into `<data dir>/token`.',
    "- **Origin allow-list.** Browsers send an `Origin` header; a handshake whose Origin is not allowed is refused at the HTTP level (`403`, before any Socket.IO packet), so a web page the user visits cannot reach the API. Allowed: Baton's own origin `http://HOST:PORT` (with `http://127.0.0.1:PORT`, `http://localhost:PORT` and `http://[::1]:PORT` when it listens on loopback or on every interface), and the origins in `BATON_ALLOWED_ORIGINS` (comma-separated `scheme://host[:port]`, e.g. `https://gui.example.com,http://localhost:5173`). A request without an Origin header (the CLI, a Node client) goes on to the token check.",
    "- **HTTP.** Baton serves Socket.IO under `/socket.io/`, the orchestrator MCP server at `POST /mcp` (a bearer token checked before any MCP processing: `401` without it, `403` for a foreign browser Origin, `405` for other methods, `413` over 4 MiB), `GET`/`HEAD /healthz`, and the console (a static web page, public: it holds nothing until it is given the token) at `GET /` with its files under `/assets/`, sent with a strict `Content-Security-Policy` (`default-src 'self'`, connections only to Baton itself) and a `503` page naming `npm run console:build` when the console was not built. Every other request is answered at once: `404` (also for `/socket.io` without its trailing slash), `405` for other methods on `/healthz`, `400` from Socket.IO for a malformed `/socket.io/` request, `404` for a WebSocket upgrade anywhere else.",
    "- **File modes.** At every start the data dir is made `0700`, Baton's folders in it (`codex/`, `checkpoints/`, the Codex home, frame-log folders) `0700` and the files it writes `0600` (`token`, `baton.sqlite` with its `-wal` and `-shm`, `baton.lock`, the Codex home's `config.toml` and model catalog, frame logs); checkpoint shadow repositories are made with `core.sharedRepository=0600` (files `0600`, git objects `0400`, folders `0700`). Modes loosened since the last start are narrowed again. The process umask is left alone on purpose: Codex, the commands it runs and git also write the user's workspace, whose files keep the user's modes. What those child processes create inside the data dir (Codex's sessions and logs) keeps the mode they give it, but every such path lies under a `0700` folder of the data dir, so no other user can reach it.",
    "- **One Baton per data dir.** At start Baton takes `<data dir>/baton.lock` (created whole, holding its pid). A second Baton on the same data dir refuses to start with a `conflict` naming the first one's pid (`baton serve` prints `baton: conflict: the data dir ... is in use by another Baton (pid N)` and exits 1). A lock whose pid is no longer alive (a Baton that was killed) is taken over. `stop()` (SIGTERM, SIGINT) releases it.",
    '- **Stray errors.** `baton serve` logs an unhandled rejection or uncaught exception (pino, stderr) and keeps serving.',
    '',
    '## Limits',
    '',
    '| what | limit | beyond it |',
    '|---|---|---|',
    `| one \`command\`, \`subscribe\` or \`query\` message, as JSON | ${mib(PAYLOAD_MAX_BYTES)} | the ack is \`{ ok: false, commandId, error: { code: "invalid_payload", message: "command is N bytes; the limit is ${PAYLOAD_MAX_BYTES}", details: { bytes, limit } } }\` and nothing is dispatched; the typed client answers the same without sending it |`,
    `| one Socket.IO packet (the transport) | ${mib(TRANSPORT_MAX_BYTES)} | Socket.IO drops it before it is parsed and closes that connection without an answer (\`disconnect\` with \`transport close\`); nothing was dispatched, Baton keeps serving; reconnect and send less |`,
    '| `thread.message.send` `text` | 1,000,000 characters (and the message limit above) | `invalid_command` (the command fails its schema) |',
    '| titles | 500 characters | `invalid_command` |',
    '| ids | up to 200 characters: letters, digits and `_ . : -`; an id a client chooses for a new thread is `thr_` followed by those, and must not be in use by anything (a thread, run, node, message, request...) | `invalid_command`; an id in use: `conflict` |',
    "| `cwd` | an absolute path to an existing directory (symlinks resolved), without control characters (NUL, newline, tab); not `/`, not Baton's data dir or its checkpoint root, nothing inside them and no folder that contains them | `invalid_payload`, and nothing is stored (not even a receipt) |",
    '| `events` query `limit` | 10,000 | `invalid_payload` |',
    '',
  ];
}
