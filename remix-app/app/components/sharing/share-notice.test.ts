import { describe, expect, it } from 'vitest';
import { shareNoticeOf, shareSavedMessage } from './share-notice';

describe('share notice', () => {
  it("reads meta.notify_new_users from the API's answer", () => {
    expect(shareNoticeOf({ data: {}, meta: { notify_new_users: { new_users: 2, sent: 1, not_sent: [{ user_id: 'usr_1', reason: 'timeout' }] } } })).toEqual({
      new_users: 2,
      sent: 1,
      not_sent: [{ user_id: 'usr_1', reason: 'timeout' }],
    });
    expect(shareNoticeOf({ data: {} })).toBeNull();
    expect(shareNoticeOf(null)).toBeNull();
    expect(shareNoticeOf({ meta: { notify_new_users: { new_users: 'x' } } })).toBeNull();
  });

  it('says what became of the e-mails', () => {
    expect(shareSavedMessage(null)).toBe('Sharing saved.');
    expect(shareSavedMessage({ new_users: 0, sent: 0, not_sent: [] })).toBe('Sharing saved. Nobody newly got access, so no e-mail was sent.');
    expect(shareSavedMessage({ new_users: 1, sent: 1, not_sent: [] })).toBe('Sharing saved. 1 person newly got access; 1 e-mail was sent.');
    const reason = 'no mail server is configured (SMTP_HOST is not set)';
    expect(
      shareSavedMessage({
        new_users: 3,
        sent: 0,
        not_sent: [
          { user_id: 'a', reason },
          { user_id: 'b', reason },
          { user_id: 'c', reason },
        ],
      }),
    ).toBe(`Sharing saved. 3 people newly got access; 0 e-mails were sent. 3 could not be sent: ${reason}.`);
  });
});
