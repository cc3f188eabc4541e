import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axisTicks, BREAK_GAP, compactNames, focusWindow, groupByPosition, placeLabels, textWidth, timeScale } from '../../lib/render/layout.ts';

describe('focusWindow', () => {
  it('zooms on a startup that is a small part of the run, with a margin after it', () => {
    assert.equal(focusWindow(3000, 32_000), 3450);
  });

  it('does not zoom when the startup already fills most of the run, or no startup is known', () => {
    assert.equal(focusWindow(25_000, 32_000), undefined);
    assert.equal(focusWindow(undefined, 32_000), undefined);
    assert.equal(focusWindow(0, 32_000), undefined);
  });
});

describe('timeScale', () => {
  it('is linear without a window', () => {
    const scale = timeScale(10_000, undefined, 100, 1000);
    assert.deepEqual([scale.x(0), scale.x(5000), scale.x(10_000), scale.x(20_000)], [100, 600, 1100, 1100]);
    assert.equal(scale.gap, undefined);
  });

  it('draws the window on most of the width, then the rest compressed after a gap', () => {
    const scale = timeScale(32_000, 3450, 100, 1000);
    const [first, second] = scale.pieces;
    assert.deepEqual([first?.from, first?.to, second?.from, second?.to], [0, 3450, 3450, 32_000]);
    assert.equal((second?.left ?? 0) - (first?.right ?? 0), BREAK_GAP);
    assert.ok(scale.x(3000) - scale.x(0) > 600, 'the startup is not drawn wide');
    assert.equal(scale.x(32_000), 1100);
    assert.ok(scale.x(3451) > (first?.right ?? 0) + BREAK_GAP - 1, 'the rest does not start after the break');
  });

  it('labels round instants on each piece, the second starting after the break', () => {
    const ticks = axisTicks(timeScale(32_000, 3450, 100, 1000));
    assert.ok(ticks.includes(0) && ticks.includes(3000) && ticks.includes(30_000), ticks.join(','));
    assert.ok(ticks.every((at, index) => index === 0 || at > (ticks[index - 1] ?? 0)), ticks.join(','));
  });
});

describe('groupByPosition', () => {
  it('joins items within the gap of a group\'s first member, and keeps the rest apart', () => {
    const groups = groupByPosition([0, 3, 5, 9, 30, 31], (x) => x, 8);
    assert.deepEqual(groups.map((group) => [group.x, group.members]), [
      [0, [0, 3, 5]],
      [9, [9]],
      [30, [30, 31]],
    ]);
  });
});

describe('placeLabels', () => {
  it('places a label after its anchor when it fits', () => {
    const [label] = placeLabels([{ x: 100, text: 'driver starts' }], 11, 0, 1000);
    assert.deepEqual([label?.left, label?.before, label?.text], [104, false, 'driver starts']);
  });

  it('places a label near the right edge before its anchor instead of past the edge', () => {
    const [label] = placeLabels([{ x: 990, text: 'GateOpened: InOrder: driver Ready 2/2' }], 11, 0, 1000);
    assert.equal(label?.before, true);
    assert.ok((label?.left ?? 0) + (label?.width ?? 0) <= 1000);
    assert.equal(label?.shortened, false);
  });

  it('never overlaps two labels: the second goes before its anchor, or is shortened into the room left', () => {
    const placed = placeLabels(
      [
        { x: 100, text: 'GateOpened: InOrder: first replicatedJob' },
        { x: 120, text: 'GateOpened: InOrder: first replicatedJob' },
      ],
      11,
      0,
      1000,
    );
    const [a, b] = placed;
    assert.ok(a !== undefined && b !== undefined);
    // Drawn clear of the first, or (no room on either side) not drawn: the table still has it.
    assert.ok(b.text === '' || b.left + b.width <= a.left || b.left >= a.left + a.width, JSON.stringify(placed));
    assert.ok(placed.every((label) => label.left >= 0 && label.left + label.width <= 1000));
  });

  it('shortens with an ellipsis when the label fits on neither side', () => {
    const [label] = placeLabels([{ x: 50, text: 'a very long label that cannot fit anywhere here' }], 11, 0, 100);
    assert.equal(label?.shortened, true);
    assert.match(label?.text ?? '', /…$/);
    assert.ok((label?.left ?? 0) + (label?.width ?? 0) <= 100);
  });

  it('measures text by its characters and font size', () => {
    assert.equal(textWidth('abcd', 10), 25);
  });
});

describe('compactNames', () => {
  it('drops the JobSet prefix, lists two by name, runs of three or more as a range', () => {
    assert.equal(compactNames(['js-driver-0', 'js-driver-1'], 'js'), 'driver-0, driver-1');
    assert.equal(compactNames(['js-worker-0', 'js-worker-1', 'js-worker-2', 'js-worker-3', 'js-worker-7'], 'js'), 'worker-0..3, worker-7');
  });

  it('counts what it does not list', () => {
    assert.equal(compactNames(['a-0', 'b-0', 'c-0'], 'js', 2), 'a-0, b-0 +1 more');
  });
});
