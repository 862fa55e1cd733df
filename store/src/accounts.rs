//! Accounts and their API keys.

use chrono::Utc;
use uuid::Uuid;

use super::{account_row, hash_key, now, Result, Store, StoreError};
use crate::db::{RecordId, RecordTime};
use teu_domain::model::Account;

impl Store {
    /// Creates an account and its first API key; returns both. The key is shown only here.
    pub async fn create_account(
        &self,
        name: &str,
        routing_data: bool,
    ) -> Result<(Account, String)> {
        if self.account_by_name(name).await?.is_some() {
            return Err(StoreError::AccountExists(name.to_string()));
        }
        let account = Account {
            id: Uuid::new_v4(),
            name: name.to_string(),
            company_name: name.to_string(),
            routing_data,
            created_at: now(),
        };
        crate::db::query(
            "INSERT INTO accounts (id, name, company_name, routing_data, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(RecordId(account.id))
        .bind(&account.name)
        .bind(&account.company_name)
        .bind(i64::from(routing_data))
        .bind(RecordTime(account.created_at))
        .execute(self.writer())
        .await?;
        let key = self.issue_key(account.id).await?;
        self.create_inbound_address(account.id).await?;
        Ok((account, key))
    }

    /// Returns the account named `name`, creating it (without a key) when it does not exist.
    pub async fn ensure_account(&self, name: &str, routing_data: bool) -> Result<Account> {
        if let Some(a) = self.account_by_name(name).await? {
            return Ok(a);
        }
        match self.create_account(name, routing_data).await {
            Ok((a, _)) => Ok(a),
            Err(StoreError::AccountExists(_)) => self
                .account_by_name(name)
                .await?
                .ok_or_else(|| StoreError::UnknownAccount(name.to_string())),
            Err(e) => Err(e),
        }
    }

    /// Issues a new API key for the account and returns it (`teu_` + 40 hex characters).
    pub async fn issue_key(&self, account_id: Uuid) -> Result<String> {
        let key = format!(
            "teu_{}{}",
            Uuid::new_v4().simple(),
            &Uuid::new_v4().simple().to_string()[..8]
        );
        crate::db::query(
            "INSERT INTO api_keys (key_hash, account_id, created_at) VALUES ($1, $2, $3)",
        )
        .bind(hash_key(&key))
        .bind(RecordId(account_id))
        .bind(RecordTime(Utc::now()))
        .execute(self.writer())
        .await?;
        Ok(key)
    }

    /// Every account, by name.
    pub async fn accounts(&self) -> Result<Vec<Account>> {
        let rows = crate::db::query(
            "SELECT id, name, company_name, routing_data, created_at FROM accounts ORDER BY name",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(account_row).collect()
    }

    /// The account named `name`, if any.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<Account>> {
        let row = crate::db::query(
            "SELECT id, name, company_name, routing_data, created_at FROM accounts WHERE name = $1",
        )
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| account_row(&r)).transpose()
    }

    /// The account owning `key`, if the key is valid. A key read in the last minute is
    /// answered from memory (`key_memo`: keys and accounts are never changed once written);
    /// an unknown key is looked up every time.
    pub async fn authenticate(&self, key: &str) -> Result<Option<Account>> {
        let key_hash = hash_key(key);
        if let Some(account) = self.keys.get(&key_hash) {
            return Ok(Some(account));
        }
        let row = crate::db::query(
            "SELECT a.id, a.name, a.company_name, a.routing_data, a.created_at \
             FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1",
        )
        .bind(&key_hash)
        .fetch_optional(self.reader())
        .await?;
        let account = row.map(|r| account_row(&r)).transpose()?;
        if let Some(account) = &account {
            self.keys.put(key_hash, account.clone());
        }
        Ok(account)
    }
}
