import { describe, expect, it } from 'vitest';
import { describePresets, PRESET_SERIES_NAME, PRESET_SUMMARIES, TRAFFIC_PRESETS } from '../src/traffic-presets.js';

/** The lists derived from TRAFFIC_PRESETS: a new preset shows up in each, or this fails (CONTRIBUTING.md). */
describe('lists derived from the traffic presets', () => {
  it('the API description of `preset` names every preset, once', () => {
    const text = describePresets();
    for (const preset of TRAFFIC_PRESETS) {
      expect(text.match(new RegExp(`(^|, | or )${preset}( \\(|,| or |$)`, 'g')), preset).toHaveLength(1);
    }
  });

  it('every preset says what its series name and what it reads', () => {
    expect(Object.keys(PRESET_SERIES_NAME).sort()).toEqual([...TRAFFIC_PRESETS].sort());
    expect(Object.keys(PRESET_SUMMARIES).sort()).toEqual([...TRAFFIC_PRESETS].sort());
  });
});
