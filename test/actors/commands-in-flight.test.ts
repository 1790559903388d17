import { describe, expect, it } from 'vitest';
import { CommandsInFlight } from '../../src/actors/commands-in-flight.js';

describe('commands in flight', () => {
  it('an id is contested from the second overlapping dispatch until the last one leaves', () => {
    const flight = new CommandsInFlight();
    flight.enter('c1');
    flight.enter('c2');
    expect(flight.isContested('c1')).toBe(false);
    flight.enter('c1');
    expect(flight.isContested('c1')).toBe(true);
    expect(flight.isContested('c2')).toBe(false);
    flight.leave('c1');
    // The one still in flight may have been answered by the one that left.
    expect(flight.isContested('c1')).toBe(true);
    flight.leave('c1');
    expect(flight.isContested('c1')).toBe(false);
    flight.enter('c1');
    expect(flight.isContested('c1')).toBe(false);
  });
});
