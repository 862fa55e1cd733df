-- `event_keys` loses its index by event (`event_keys_event`), which existed only to delete the
-- keys of an event rewritten by a later version (issue 16: its inserts were the largest
-- statement of the store stage, a random-order B-tree as large as the table). The keys of a
-- rewritten event are now deleted by this trigger, from the version being replaced: its
-- containers, bills of lading and bookings as its stored body lists them, which are the keys
-- the store wrote for it (`teu_store::events::event_key_rows`). The writer inserts the new
-- version's keys after the update. A new event fires nothing.
DROP INDEX event_keys_event;

CREATE TRIGGER transport_events_keys_replaced
AFTER UPDATE OF body ON transport_events
WHEN old.body <> new.body
BEGIN
    DELETE FROM event_keys
    WHERE (account_id, kind, value, event_id) IN (
        SELECT old.account_id, 'container', value, old.id FROM json_each(old.body, '$.containers')
        UNION ALL
        SELECT old.account_id, 'bill_of_lading', value, old.id FROM json_each(old.body, '$.bills_of_lading')
        UNION ALL
        SELECT old.account_id, 'booking', value, old.id FROM json_each(old.body, '$.bookings')
    );
END;
