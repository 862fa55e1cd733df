-- `event_keys` loses its index by event (`event_keys_event`), which existed only to delete the
-- keys of an event rewritten by a later version (issue 16: its inserts were among the largest
-- statements of the store stage, a random-order B-tree as large as the table's own key). The
-- keys of a rewritten event are now deleted by this trigger, from the version being replaced:
-- its containers, bills of lading and bookings as its stored body lists them, which are the
-- keys the store wrote for it (`teu_store::events::event_key_rows`). The writer inserts the new
-- version's keys after the update. A new event fires nothing.
DROP INDEX event_keys_event;

CREATE FUNCTION transport_events_keys_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM event_keys k
    USING (
        SELECT 'container' AS kind, v AS value FROM jsonb_array_elements_text(OLD.body::jsonb -> 'containers') AS v
        UNION ALL
        SELECT 'bill_of_lading', v FROM jsonb_array_elements_text(OLD.body::jsonb -> 'bills_of_lading') AS v
        UNION ALL
        SELECT 'booking', v FROM jsonb_array_elements_text(OLD.body::jsonb -> 'bookings') AS v
    ) AS old_keys
    WHERE k.account_id = OLD.account_id AND k.event_id = OLD.id
      AND k.kind = old_keys.kind AND k.value = old_keys.value;
    RETURN NULL;
END
$$;

CREATE TRIGGER transport_events_keys_replaced
AFTER UPDATE OF body ON transport_events
FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body)
EXECUTE FUNCTION transport_events_keys_replaced();
