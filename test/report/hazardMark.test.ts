import { describe, expect, it } from 'vitest';
import { HAZARD_IDS, HAZARDS } from '../../src/invariants/hazards.js';
import { hazardMark, hazardText } from '../../src/report/hazardMark.js';

describe('hazardMark', () => {
  it('is undefined for a violation no hazard explains', () => {
    expect(hazardMark(undefined)).toBeUndefined();
    expect(hazardMark(null)).toBeUndefined();
  });

  it('names every hazard with its upstream issue, the first of its references', () => {
    for (const id of HAZARD_IDS) {
      const m = hazardMark(id);
      expect(m?.upstream).toBe(HAZARDS[id].upstream[0]);
      expect(m?.upstream).toMatch(/^kubernetes\/kubernetes#\d+$/);
      expect(hazardText(m!)).toBe(`known-open hazard ${id}, ${HAZARDS[id].upstream[0]}`);
    }
  });

  it('marks an ID this version does not know (a JSON file of another version) by its name alone', () => {
    const m = hazardMark('some-future-hazard');
    expect(m).toEqual({ id: 'some-future-hazard', upstream: '', upstreams: [], summary: '' });
    expect(hazardText(m!)).toBe('known-open hazard some-future-hazard');
    // An inherited property of an object is no hazard.
    expect(hazardMark('toString')?.upstream).toBe('');
  });
});
