import { describe, expect, it } from 'vitest';
import { canEditGroup, creatableKinds, groupBody, membershipChanges, moveGroup, toggleMember } from './dashboard-groups';

describe('dashboard group helpers', () => {
  it('mirrors the API: shared groups need Manage Dashboards, personal ones only their owner', () => {
    expect(canEditGroup({ personal: false }, true)).toBe(true);
    expect(canEditGroup({ personal: false }, false)).toBe(false);
    expect(canEditGroup({ personal: true }, false)).toBe(true);
    expect(creatableKinds(true)).toEqual(['shared', 'personal']);
    expect(creatableKinds(false)).toEqual(['personal']);
  });

  it('moves a group one place, and refuses moves past either end or of unknown ids', () => {
    expect(moveGroup(['a', 'b', 'c'], 'b', -1)).toEqual(['b', 'a', 'c']);
    expect(moveGroup(['a', 'b', 'c'], 'b', 1)).toEqual(['a', 'c', 'b']);
    expect(moveGroup(['a', 'b', 'c'], 'a', -1)).toBeNull();
    expect(moveGroup(['a', 'b', 'c'], 'c', 1)).toBeNull();
    expect(moveGroup(['a'], 'x', 1)).toBeNull();
  });

  it('adds a member last, removes it, and never lists it twice', () => {
    expect(toggleMember(['x', 'y'], 'z', true)).toEqual(['x', 'y', 'z']);
    expect(toggleMember(['x', 'y'], 'x', true)).toEqual(['y', 'x']);
    expect(toggleMember(['x', 'y'], 'x', false)).toEqual(['y']);
    expect(toggleMember([], 'x', false)).toEqual([]);
  });

  it('changes only the groups whose membership differs from the ticks', () => {
    const groups = [
      { id: 'g1', dashboardIds: ['d1', 'd2'] },
      { id: 'g2', dashboardIds: ['d2'] },
      { id: 'g3', dashboardIds: [] },
    ];
    expect(membershipChanges(groups, 'd1', new Set(['g1', 'g3']))).toEqual([{ id: 'g3', dashboardIds: ['d1'] }]);
    expect(membershipChanges(groups, 'd2', new Set([]))).toEqual([
      { id: 'g1', dashboardIds: ['d1'] },
      { id: 'g2', dashboardIds: [] },
    ]);
    expect(membershipChanges(groups, 'd1', new Set(['g1']))).toEqual([]);
  });

  it('builds JSON:API bodies: personal only on create, an empty description clears it', () => {
    expect(groupBody({ name: 'Sales', description: '', personal: true })).toEqual({
      data: { type: 'dashboard_groups', attributes: { name: 'Sales', description: null, personal: true } },
    });
    expect(groupBody({ name: 'S', description: 'd', personal: true }, 'g1')).toEqual({
      data: { type: 'dashboard_groups', id: 'g1', attributes: { name: 'S', description: 'd' } },
    });
    expect(groupBody({ dashboardIds: ['d1'] }, 'g1')).toEqual({
      data: { type: 'dashboard_groups', id: 'g1', attributes: {}, relationships: { dashboards: { data: [{ type: 'dashboards', id: 'd1' }] } } },
    });
  });
});
