// What the arena offers every bot: its log, its fuel, its limits.
import * as host from 'arena:bots/host@0.2.0';

/** Append one line to your bot's log (kept in the replay, capped per game). */
export function log(message) {
  host.log(String(message));
}

/**
 * Fuel left now: `.callFuel` in this move, `.bankFuel` in the game's bank
 * (BigInts). Fuel counts wasm instructions; the JavaScript engine runs many
 * per line of your code, so measure with this rather than guess.
 */
export function budget() {
  return host.budget();
}

/** The game's limits: `.moveFuel`, `.bankFuel`, `.startFuel`, `.memoryBytes` (BigInts). */
export function limits() {
  return host.limits();
}

/**
 * Runs one call of the bot. An exception is logged in one line (its name,
 * message and where it was thrown) and thrown again: the arena forfeits the
 * game and shows that line as the reason, in every JavaScript engine.
 */
export function guarded(call) {
  try {
    return call();
  } catch (error) {
    const name = (error && error.name) || 'Error';
    const message = error && error.message !== undefined ? error.message : String(error);
    const frame = error && error.stack ? String(error.stack).trim().split('\n')[0].trim() : '';
    host.log(`arena: uncaught ${name}: ${message}${frame ? ` (at ${frame.replace(/^at /, '')})` : ''}`);
    throw error;
  }
}

/**
 * Says in the log when the engine handed the game's u64 seed over as a float
 * (componentize-qjs 0.4 does): above 2^53 it is rounded, so an `Rng` seeded
 * from it draws other numbers than a Rust bot seeded from the same game.
 */
export function checkSeed(info) {
  if (typeof info.seed === 'number' && !Number.isSafeInteger(info.seed)) {
    host.log('arena-bot: the seed arrived as a float (this JavaScript engine rounds 64-bit numbers), '
      + 'so Rng draws differ from a Rust bot\'s on the same game; games still replay the same');
  }
}
