-- Demo warehouse of "Northwind Cloud", a fictional B2B SaaS company.
-- Money is stored in integer cents; timestamps are UTC text 'YYYY-MM-DD HH:MM:SS'.

CREATE TABLE plans (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,            -- stable plan code, e.g. 'growth'
  name TEXT NOT NULL,                   -- display name
  tier TEXT NOT NULL,                   -- starter | growth | business | enterprise
  monthly_price_cents INTEGER NOT NULL, -- list price per month, in cents
  annual_price_cents INTEGER NOT NULL,  -- list price per year, in cents
  seats_included INTEGER NOT NULL,
  extra_seat_cents INTEGER NOT NULL,    -- monthly price of each seat above seats_included
  is_active INTEGER NOT NULL            -- 0 for retired plans still billed to old customers
);

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  domain TEXT NOT NULL UNIQUE,
  industry TEXT NOT NULL,
  segment TEXT NOT NULL,                -- SMB | Mid-Market | Enterprise
  region TEXT NOT NULL,                 -- NA | EMEA | APAC | LATAM
  country TEXT NOT NULL,                -- ISO 3166 alpha-2
  employee_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  deleted_at TEXT                       -- soft delete: exclude rows where this is set
);

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  role TEXT NOT NULL,                   -- admin | member | viewer
  created_at TEXT NOT NULL,
  last_seen_at TEXT,
  deleted_at TEXT                       -- soft delete
);

CREATE TABLE subscriptions (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  plan_id INTEGER NOT NULL REFERENCES plans(id),
  status TEXT NOT NULL,                 -- legacy mixed case: 'active', 'Active', 'ACTIVE', 'canceled', 'Cancelled', 'trialing', 'past_due', 'PastDue'
  billing_interval TEXT NOT NULL,       -- month | year
  seats INTEGER NOT NULL,
  mrr_cents INTEGER NOT NULL,           -- monthly recurring revenue in cents (annual plans: price / 12)
  started_at TEXT NOT NULL,
  trial_ends_at TEXT NOT NULL,
  ended_at TEXT                         -- set when canceled or replaced by an upgrade
);

CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
  invoice_number TEXT NOT NULL UNIQUE,
  issued_at TEXT NOT NULL,
  due_at TEXT NOT NULL,
  status TEXT NOT NULL,                 -- paid | open | void | uncollectible
  currency TEXT NOT NULL,               -- USD | EUR | GBP: do not add amounts across currencies
  subtotal_cents INTEGER NOT NULL,
  tax_cents INTEGER NOT NULL,
  total_cents INTEGER NOT NULL          -- subtotal_cents + tax_cents
);

CREATE TABLE invoice_lines (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),  -- one invoice has many lines: joining fans out invoice amounts
  line_type TEXT NOT NULL,              -- subscription | seats | usage | discount
  description TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  unit_amount_cents INTEGER NOT NULL,
  amount_cents INTEGER NOT NULL         -- quantity * unit_amount_cents; negative for discounts
);

CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  attempted_at TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,        -- negative for refunds
  method TEXT NOT NULL,                 -- card | ach | wire
  status TEXT NOT NULL                  -- succeeded | failed | refunded
);

CREATE TABLE support_tickets (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  requester_user_id INTEGER REFERENCES users(id),
  opened_at TEXT NOT NULL,
  first_response_at TEXT,
  closed_at TEXT,
  priority TEXT NOT NULL,               -- low | normal | high | urgent
  category TEXT NOT NULL,               -- billing | bug | how_to | feature_request | outage
  status TEXT NOT NULL,                 -- open | pending | solved | closed
  satisfaction_score INTEGER            -- 1..5, only when the requester answered the survey
);

CREATE TABLE product_events (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  occurred_at TEXT NOT NULL,
  event_name TEXT NOT NULL,             -- login | dashboard_viewed | report_created | export_csv | invite_sent | api_call
  properties TEXT NOT NULL              -- JSON object
);

CREATE INDEX users_account ON users(account_id);
CREATE INDEX subscriptions_account ON subscriptions(account_id);
CREATE INDEX invoices_account ON invoices(account_id);
CREATE INDEX invoices_subscription ON invoices(subscription_id);
CREATE INDEX invoice_lines_invoice ON invoice_lines(invoice_id);
CREATE INDEX payments_invoice ON payments(invoice_id);
CREATE INDEX tickets_account ON support_tickets(account_id);
CREATE INDEX events_account_time ON product_events(account_id, occurred_at);
