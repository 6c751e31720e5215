import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optionGroups } from '@quire/text';

const marks = (text: string) => optionGroups(text).map((g) => g.options.map((o) => `${o.checked ? '+' : '-'}${o.label}`).join(' '));

test('optionGroups: a box before each option, after each option, or one a line', () => {
  assert.deepEqual(marks('Choose as many as you like: ☒ Orange juice ☐ Tea ☒ Coffee'), ['+Orange juice -Tea +Coffee']);
  assert.deepEqual(optionGroups('Choose as many as you like: ☒ Orange juice ☐ Tea')[0]!.prompt, 'Choose as many as you like');
  assert.deepEqual(marks('Large accelerated filer ☐ Accelerated filer ☐ Smaller reporting company ☑'), ['-Large accelerated filer -Accelerated filer +Smaller reporting company']);
  // the first label after the sentence that asks
  const yesNo = optionGroups('Indicate by check mark whether the registrant is a shell company. Yes ☐ No ☒')[0]!;
  assert.deepEqual(yesNo.options, [{ label: 'Yes', checked: false }, { label: 'No', checked: true }]);
  assert.match(yesNo.prompt, /shell company\.$/);
  const list = optionGroups('Tasks before release:\n\n☒ Design\n\n[x] Implementation\n\n[ ] Documentation\n\nSigned off by the team.');
  assert.deepEqual(marks('Tasks before release:\n\n☒ Design\n\n[x] Implementation\n\n[ ] Documentation'), ['+Design +Implementation -Documentation']);
  assert.equal(list[0]!.prompt, 'Tasks before release:');
  // a table's cells are lines of their own
  assert.deepEqual(marks('| Breakfast options |\n| --- |\n| ☒ Eggs ☐ Porridge |\n| ☐ Tea ☒ Milk |'), ['+Eggs -Porridge', '-Tea +Milk']);
  assert.equal(optionGroups('| Breakfast options |\n| --- |\n| ☒ Eggs ☐ Porridge |')[0]!.context, 'Breakfast options');
});

test('optionGroups: bullets and lone boxes are no options', () => {
  assert.deepEqual(marks('● First point\n● Second point'), []);
  assert.deepEqual(marks('Signature ☐'), []);
  assert.deepEqual(marks('No boxes here at all.'), []);
});
