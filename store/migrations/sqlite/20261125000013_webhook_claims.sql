-- Claims go webhook by webhook (`Store::claim_notifications_except`): the due notifications of
-- one webhook, oldest first, are one range of this index. The old index ordered every webhook's
-- rows together, so a claim that leaves out a hanging receiver's webhook walked past its whole
-- backlog (and read each row to test its webhook) before reaching anything it could take.
DROP INDEX webhook_notifications_due;
CREATE INDEX webhook_notifications_due ON webhook_notifications (delivery_status, webhook_id, next_attempt_at);
