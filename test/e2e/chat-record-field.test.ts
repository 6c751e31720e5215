import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Where no sentence answers, the one field of a record the question names: a table's cell under the row and the column the
 * question says ("the restructuring costs of Zone North" → the Zone North row, the restructuring costs column), quoted
 * with its names, below 0.8, and never when another row is named as well.
 */

const SEGMENTS = [
  'Segment,Sales,Trading operating profit,Impairment of equipment,Restructuring costs',
  'Zone North,9467,1373,-5,-140',
  'Zone South,12553,2632,-29,-44',
  'Zone East,9060,1985,-49,-16',
  'Zone West,6082,1101,-4,-21',
].join('\n');

const THRESHOLDS = [
  'Pollutant,Threshold to air (kg/year),Threshold to water (kg/year),Threshold to land (kg/year)',
  'Methane (CH4),100 000,-,-',
  'Nitrous oxide (N2O),10 000,-,-',
  'Arsenic and compounds,20,5,5',
  'Cadmium and compounds,10,5,5',
].join('\n');

describe('chat: the field of a record the question names', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Records', [
      ['segments.csv', SEGMENTS],
      ['release-thresholds.csv', THRESHOLDS],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('a cell under the row and the column the question names, with its names', async () => {
    const a = await ask('What were the restructuring costs of Zone North?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /Zone North \(Restructuring costs\): -140/);
    assert.doesNotMatch(a.message, /9467|1373/);
    assert.ok(cites(a, 'segments.csv'), a.message);
    assert.ok(a.confidence < 0.8, `confidence ${a.confidence}`);
  });

  test('a cell the question names but asks no type of: quoted alone, as a passage, not the row of cells', async () => {
    const a = await ask('From what yearly release of nitrous oxide to air must a plant report?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /Nitrous oxide \(N2O\) \(Threshold to air \(kg\/year\)\): 10 000/);
    // (the cell alone: not the row's other columns)
    assert.doesNotMatch(a.message, /100 000|Threshold to (?:water|land)/);
    assert.ok(cites(a, 'release-thresholds.csv'), a.message);
    assert.ok(a.confidence < 0.8, `confidence ${a.confidence}`);
  });

  test('a row the question does not tell from the others: no cell of it', async () => {
    const a = await ask('What were the restructuring costs of the zone?');
    assert.doesNotMatch(a.message, /-140|-44|-16|-21/);
  });
});
