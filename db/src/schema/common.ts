import { text, timestamp } from 'drizzle-orm/pg-core';

/** Every row belongs to an organization; deleting the organization deletes its rows. */
export const orgId = () => text().notNull();
export const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
export const ts = () => timestamp({ withTimezone: true, mode: 'date' });
