import { test } from 'node:test';
import assert from 'node:assert/strict';
import { townAsked, townsIn } from '@quire/text';

const towns = (text: string) => townsIn(text).map((t) => `${t.postcode} ${t.town}`);

test('townsIn: a town printed with its postcode, before or after it', () => {
  assert.deepEqual(towns('QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen\nTel. +49 6051'), ['D-63571 Gelnhausen']);
  assert.deepEqual(towns('Coolblue B.V. Weena 664 3012 CN Rotterdam Nederland www.example.nl'), ['3012 CN Rotterdam']);
  assert.deepEqual(towns('6480 Cameron Street Ste. 305 – Las Vegas, NV 89118'), ['NV 89118 Las Vegas']);
  assert.deepEqual(towns('410 Terry Ave North Seattle, WA 98109-5210'), ['WA 98109-5210 Seattle']);
  assert.deepEqual(towns('Corporate Office: 9th floor, Sec-69, Gurgaon -122001 | Phone'), ['122001 Gurgaon']);
  assert.deepEqual(towns('Robert Schneider AG Rue du Lac 1268 2501 Biel Additional information'), ['2501 Biel']);
});

test('townsIn: a street number, a year, an amount or a label after a number is no town', () => {
  assert.deepEqual(towns('6480 Cameron Street'), []);
  assert.deepEqual(towns('2019 Annual Report'), []);
  assert.deepEqual(towns('1587 Qty 2'), []);
  assert.deepEqual(towns('Total 12345 Euro'), []);
  assert.deepEqual(towns('Invoice 48567 paid in full'), []);
});

test('townAsked: a question for the town or city of something', () => {
  assert.ok(townAsked('In which city is Coolblue located?'));
  assert.ok(townAsked('Where is QualityHosting AG based?'));
  assert.ok(townAsked('In which town does Robert Schneider AG have its office?'));
  assert.ok(townAsked("Where are Galaxy Gaming's headquarters?"));
  assert.ok(!townAsked('Where was Iwan Roberts born?'));
  assert.ok(!townAsked('In which state is Galaxy Gaming incorporated?'));
});

test('townsIn: a town of two words keeps both when a sentence goes on after the next word', () => {
  assert.deepEqual(townsIn('Sec-3, New Delhi - 110001 Registered office').map((t) => t.town), ['New Delhi']);
  assert.deepEqual(townsIn('Jalan Raja 56000 Kuala Lumpur Payable by cheque').map((t) => t.town), ['Kuala Lumpur']);
});
