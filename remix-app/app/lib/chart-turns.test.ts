import { describe, expect, it } from 'vitest';
import { TurnQueue } from './chart-turns';

describe('chart turns', () => {
  it('grant one turn per scheduled task, in order, and skip a turn given up', () => {
    const tasks: (() => void)[] = [];
    const q = new TurnQueue((run) => tasks.push(run));
    const granted: string[] = [];
    q.take(() => granted.push('a'));
    const leave = q.take(() => granted.push('b'));
    q.take(() => granted.push('c'));
    expect(tasks).toHaveLength(1); // one task at a time
    leave();
    tasks.shift()!();
    expect(granted).toEqual(['a']);
    tasks.shift()!();
    expect(granted).toEqual(['a']); // b gave its turn up: its task grants nothing
    tasks.shift()!();
    expect(granted).toEqual(['a', 'c']);
    expect(tasks).toHaveLength(0);
    q.take(() => granted.push('d'));
    tasks.shift()!();
    expect(granted).toEqual(['a', 'c', 'd']);
  });
});
