//! Fills the demo schema. Entities are generated in dependency order
//! (plans → accounts → users → subscriptions → invoices → lines → payments,
//! then tickets and events), each from the same seeded generator.

use std::collections::HashSet;

use rusqlite::{Transaction, params};

use super::rng::{
    Rng, add_months, civil_from_days, date, days_from_civil, timestamp, timestamp_at, weekday,
};

const SEED: u64 = 0x10AE_2024;
const ACCOUNTS: usize = 1200;
const PRODUCT_EVENTS: usize = 60_000;

struct Plan {
    id: i64,
    code: &'static str,
    monthly_cents: i64,
    seats_included: i64,
    extra_seat_cents: i64,
}

/// Plans an account moves through when it upgrades, cheapest first.
const UPGRADE_LADDER: [&str; 4] = ["starter", "growth", "business", "enterprise"];

const PLANS: &[(&str, &str, &str, i64, i64, i64, bool)] = &[
    // code, name, tier, monthly price, seats included, extra seat, active
    ("starter", "Starter", "starter", 4_900, 3, 1_500, true),
    ("growth", "Growth", "growth", 19_900, 10, 1_200, true),
    ("business", "Business", "business", 49_900, 25, 1_000, true),
    (
        "enterprise",
        "Enterprise",
        "enterprise",
        150_000,
        100,
        800,
        true,
    ),
    (
        "pro_legacy",
        "Pro (legacy)",
        "growth",
        9_900,
        5,
        1_500,
        false,
    ),
];

struct Account {
    id: i64,
    domain: String,
    segment: &'static str,
    region: &'static str,
    country: &'static str,
    created: i64,
    deleted: Option<i64>,
}

struct User {
    id: i64,
    account: usize,
    created: i64,
    deleted: Option<i64>,
}

pub(super) fn populate(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let mut rng = Rng::new(SEED);
    let start = days_from_civil(2024, 1, 1);
    let end = days_from_civil(2025, 12, 31);
    let plans = insert_plans(tx)?;
    let accounts = insert_accounts(tx, &mut rng, start, end)?;
    let users = insert_users(tx, &mut rng, &accounts, end)?;
    insert_subscriptions_and_billing(tx, &mut rng, &plans, &accounts, end)?;
    insert_tickets(tx, &mut rng, &accounts, &users, end)?;
    insert_events(tx, &mut rng, &accounts, &users, end)?;
    Ok(())
}

fn insert_plans(tx: &Transaction<'_>) -> rusqlite::Result<Vec<Plan>> {
    let mut stmt = tx.prepare(
        "INSERT INTO plans (id, code, name, tier, monthly_price_cents, annual_price_cents, seats_included, extra_seat_cents, is_active) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut plans = Vec::new();
    for (index, (code, name, tier, monthly, seats, extra, active)) in PLANS.iter().enumerate() {
        let id = index as i64 + 1;
        stmt.execute(params![
            id,
            code,
            name,
            tier,
            monthly,
            monthly * 10,
            seats,
            extra,
            *active as i64
        ])?;
        plans.push(Plan {
            id,
            code,
            monthly_cents: *monthly,
            seats_included: *seats,
            extra_seat_cents: *extra,
        });
    }
    Ok(plans)
}

const NAME_PREFIXES: [&str; 40] = [
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Cyberdyne",
    "Soylent",
    "Tyrell",
    "Wonka",
    "Gringotts",
    "Oscorp",
    "Aperture",
    "Black Mesa",
    "Monarch",
    "Nakatomi",
    "Virtucon",
    "Massive",
    "Blue Harbor",
    "Red Rock",
    "Silver Pine",
    "Golden Gate",
    "Northstar",
    "Bright Path",
    "Clearwater",
    "Ironwood",
    "Maple",
    "Granite",
    "Summit",
    "Riverbend",
    "Lakeside",
    "Evergreen",
    "Copperfield",
    "Sunrise",
    "Blackbird",
    "Kestrel",
    "Orchid",
    "Quantum",
];
const NAME_SUFFIXES: [&str; 30] = [
    "Labs",
    "Systems",
    "Analytics",
    "Logistics",
    "Health",
    "Foods",
    "Capital",
    "Robotics",
    "Media",
    "Energy",
    "Software",
    "Retail",
    "Partners",
    "Dynamics",
    "Networks",
    "Biotech",
    "Studios",
    "Holdings",
    "Works",
    "Security",
    "Motors",
    "Freight",
    "Insurance",
    "Learning",
    "Travel",
    "Legal",
    "Pharma",
    "Realty",
    "Apparel",
    "Games",
];
const INDUSTRIES: [&str; 8] = [
    "Software",
    "Financial Services",
    "Healthcare",
    "Retail",
    "Manufacturing",
    "Media",
    "Education",
    "Logistics",
];

fn insert_accounts(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    start: i64,
    end: i64,
) -> rusqlite::Result<Vec<Account>> {
    let mut names: Vec<(usize, usize)> = (0..NAME_PREFIXES.len())
        .flat_map(|p| (0..NAME_SUFFIXES.len()).map(move |s| (p, s)))
        .collect();
    for i in (1..names.len()).rev() {
        let j = rng.range(0, i as i64) as usize;
        names.swap(i, j);
    }
    let mut created_days: Vec<i64> = (0..ACCOUNTS).map(|_| signup_day(rng, start, end)).collect();
    created_days.sort_unstable();
    let mut stmt = tx.prepare(
        "INSERT INTO accounts (id, name, domain, industry, segment, region, country, employee_count, created_at, deleted_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut accounts = Vec::with_capacity(ACCOUNTS);
    for (index, created) in created_days.into_iter().enumerate() {
        let id = index as i64 + 1;
        let (p, s) = names[index];
        let name = format!("{} {}", NAME_PREFIXES[p], NAME_SUFFIXES[s]);
        let domain = format!("{}.com", name.to_ascii_lowercase().replace(' ', ""));
        let segment = rng.weighted(&[("SMB", 0.6), ("Mid-Market", 0.3), ("Enterprise", 0.1)]);
        let region = rng.weighted(&[("NA", 0.45), ("EMEA", 0.3), ("APAC", 0.15), ("LATAM", 0.1)]);
        let country = *rng.pick(match region {
            "NA" => &["US", "US", "US", "CA"][..],
            "EMEA" => &["GB", "DE", "FR", "NL", "SE", "ES"][..],
            "APAC" => &["AU", "JP", "SG", "IN"][..],
            _ => &["BR", "MX", "AR", "CL"][..],
        });
        let employees = match segment {
            "SMB" => rng.range(5, 200),
            "Mid-Market" => rng.range(200, 2_000),
            _ => rng.range(2_000, 50_000),
        };
        let deleted =
            (rng.chance(0.04) && created + 60 < end).then(|| rng.range(created + 60, end));
        stmt.execute(params![
            id,
            name,
            &domain,
            rng.pick(&INDUSTRIES),
            segment,
            region,
            country,
            employees,
            timestamp(created, rng.range(8 * 3600, 19 * 3600)),
            deleted.map(|d| timestamp(d, rng.range(0, 86_399))),
        ])?;
        accounts.push(Account {
            id,
            domain,
            segment,
            region,
            country,
            created,
            deleted,
        });
    }
    Ok(accounts)
}

/// A signup day: more signups as the company grows, peaks in Q1 and
/// September, troughs in August and December.
fn signup_day(rng: &mut Rng, start: i64, end: i64) -> i64 {
    loop {
        let day = rng.range(start, end);
        let growth = 0.55 + 0.45 * (day - start) as f64 / (end - start) as f64;
        let month = date(day)[5..7].parse::<u32>().unwrap_or(1);
        let season = match month {
            1 | 3 | 9 => 1.25,
            2 => 1.1,
            8 => 0.75,
            12 => 0.55,
            _ => 1.0,
        };
        let weekend = if weekday(day) >= 5 { 0.3 } else { 1.0 };
        if rng.unit() < growth * season * weekend / 1.25 {
            return day;
        }
    }
}

const FIRST_NAMES: [&str; 24] = [
    "Ada", "Ben", "Chloe", "Dev", "Elena", "Farah", "Gus", "Hana", "Ivan", "Julia", "Kofi", "Lena",
    "Mateo", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tariq", "Uma", "Victor", "Wen",
    "Yara",
];
const LAST_NAMES: [&str; 20] = [
    "Smith", "Garcia", "Chen", "Okafor", "Müller", "Rossi", "Kim", "Novak", "Silva", "Patel",
    "Johnson", "Dubois", "Tanaka", "Nguyen", "Kowalski", "Ahmed", "Larsen", "Costa", "Brown",
    "Ivanova",
];

fn insert_users(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    accounts: &[Account],
    end: i64,
) -> rusqlite::Result<Vec<User>> {
    let mut stmt = tx.prepare(
        "INSERT INTO users (id, account_id, email, full_name, role, created_at, last_seen_at, deleted_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut users = Vec::new();
    let mut emails = HashSet::new();
    for (index, account) in accounts.iter().enumerate() {
        let n = match account.segment {
            "SMB" => rng.range(2, 8),
            "Mid-Market" => rng.range(6, 20),
            _ => rng.range(20, 50),
        };
        let domain = &account.domain;
        let alive_until = account.deleted.unwrap_or(end);
        for k in 0..n {
            let id = users.len() as i64 + 1;
            let first = rng.pick(&FIRST_NAMES);
            let last = rng.pick(&LAST_NAMES);
            let mut email = format!("{}.{}@{domain}", first.to_lowercase(), last.to_lowercase());
            if !emails.insert(email.clone()) {
                email = format!(
                    "{}.{}{id}@{domain}",
                    first.to_lowercase(),
                    last.to_lowercase()
                );
                emails.insert(email.clone());
            }
            let created =
                (account.created + if k == 0 { 0 } else { rng.range(0, 120) }).min(alive_until);
            let deleted = (rng.chance(0.05) && created < alive_until)
                .then(|| rng.range(created, alive_until));
            let last_seen = rng.range(created, deleted.unwrap_or(alive_until));
            let role = if k == 0 {
                "admin"
            } else {
                rng.weighted(&[("admin", 0.1), ("member", 0.7), ("viewer", 0.2)])
            };
            stmt.execute(params![
                id,
                account.id,
                email,
                format!("{first} {last}"),
                role,
                timestamp(created, rng.range(8 * 3600, 18 * 3600)),
                timestamp(last_seen, rng.range(7 * 3600, 22 * 3600)),
                deleted.map(|d| timestamp(d, rng.range(0, 86_399))),
            ])?;
            users.push(User {
                id,
                account: index,
                created,
                deleted,
            });
        }
    }
    Ok(users)
}

struct Billing<'t> {
    subscription: rusqlite::Statement<'t>,
    invoice: rusqlite::Statement<'t>,
    line: rusqlite::Statement<'t>,
    payment: rusqlite::Statement<'t>,
    subscription_id: i64,
    invoice_id: i64,
    line_id: i64,
    payment_id: i64,
}

fn insert_subscriptions_and_billing(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    plans: &[Plan],
    accounts: &[Account],
    end: i64,
) -> rusqlite::Result<()> {
    let mut billing = Billing {
        subscription: tx.prepare(
            "INSERT INTO subscriptions (id, account_id, plan_id, status, billing_interval, seats, mrr_cents, started_at, trial_ends_at, ended_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?,
        invoice: tx.prepare(
            "INSERT INTO invoices (id, account_id, subscription_id, invoice_number, issued_at, due_at, status, currency, subtotal_cents, tax_cents, total_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?,
        line: tx.prepare(
            "INSERT INTO invoice_lines (id, invoice_id, line_type, description, quantity, unit_amount_cents, amount_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?,
        payment: tx.prepare(
            "INSERT INTO payments (id, invoice_id, account_id, attempted_at, amount_cents, method, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?,
        subscription_id: 0,
        invoice_id: 0,
        line_id: 0,
        payment_id: 0,
    };
    let plan_by_code = |code: &str| plans.iter().find(|p| p.code == code).unwrap_or(&plans[0]);
    // The plan one rung up the ladder; none for the top plan and for the
    // legacy plan, which is grandfathered and never upgraded.
    let upgrade_of = |plan: &Plan| {
        let rung = UPGRADE_LADDER.iter().position(|code| *code == plan.code)?;
        Some(plan_by_code(UPGRADE_LADDER.get(rung + 1)?))
    };
    let legacy_cutoff = days_from_civil(2024, 6, 1);
    for account in accounts {
        let mut plan = plan_by_code(match account.segment {
            "SMB" if account.created < legacy_cutoff && rng.chance(0.3) => "pro_legacy",
            "SMB" => rng.weighted(&[("starter", 0.7), ("growth", 0.3)]),
            "Mid-Market" => rng.weighted(&[("growth", 0.6), ("business", 0.4)]),
            _ => rng.weighted(&[("business", 0.4), ("enterprise", 0.6)]),
        });
        let monthly_churn = match account.segment {
            "SMB" => 0.025,
            "Mid-Market" => 0.012,
            _ => 0.005,
        };
        let mut started = account.created + rng.range(0, 10);
        let mut upgraded = false;
        loop {
            let interval_months = if account.segment == "Enterprise" || rng.chance(0.25) {
                12
            } else {
                1
            };
            let trial_end = started + 14;
            let stop = account.deleted.unwrap_or(end + 1);
            // Month by month: churn, or (once) an upgrade that replaces this subscription.
            let mut ended = None;
            let mut upgrade_now = false;
            let mut month = trial_end;
            while month <= end && month < stop {
                if rng.chance(monthly_churn) {
                    ended = Some(month + rng.range(0, 27));
                    break;
                }
                if !upgraded && upgrade_of(plan).is_some() && rng.chance(0.006) {
                    ended = Some(month);
                    upgrade_now = true;
                    break;
                }
                month = add_months(month, 1);
            }
            if account.deleted.is_some() && ended.is_none() {
                ended = account.deleted;
            }
            let ended = ended.filter(|e| *e <= end);
            write_subscription(
                &mut billing,
                rng,
                plan,
                account,
                started,
                trial_end,
                ended,
                interval_months,
                end,
            )?;
            if upgrade_now && let (Some(e), Some(next)) = (ended, upgrade_of(plan)) {
                plan = next;
                upgraded = true;
                started = e;
                continue;
            }
            break;
        }
    }
    Ok(())
}

/// One line of an invoice: line type, description, quantity and unit
/// amount in cents.
type InvoiceLine = (&'static str, &'static str, i64, i64);

/// What a subscription bills, as its invoices need it.
struct Terms<'a> {
    subscription_id: i64,
    account: &'a Account,
    plan: &'a Plan,
    interval_months: i64,
    /// Seats beyond the plan's, billed every month.
    extra_seats: i64,
    /// The plan's fee per billing interval.
    plan_fee: i64,
    /// The first invoice's day.
    trial_end: i64,
    ended: Option<i64>,
}

impl Terms<'_> {
    /// Whether the subscription is billed yearly.
    fn annual(&self) -> bool {
        self.interval_months == 12
    }

    /// Extra seats billed per interval.
    fn seat_quantity(&self) -> i64 {
        self.extra_seats * self.interval_months
    }
}

/// Writes one subscription, then its invoices (with their lines and
/// payments) from the trial's end until it ends.
#[allow(clippy::too_many_arguments)]
fn write_subscription(
    billing: &mut Billing<'_>,
    rng: &mut Rng,
    plan: &Plan,
    account: &Account,
    started: i64,
    trial_end: i64,
    ended: Option<i64>,
    interval_months: i64,
    end: i64,
) -> rusqlite::Result<()> {
    billing.subscription_id += 1;
    let subscription_id = billing.subscription_id;
    let extra_seats = match account.segment {
        "SMB" => rng.range(0, 3),
        "Mid-Market" => rng.range(0, 15),
        _ => rng.range(0, 120),
    };
    let seats = plan.seats_included + extra_seats;
    let annual = interval_months == 12;
    // Annual plans cost ten months' fee; extra seats are billed every month.
    let plan_fee = if annual {
        plan.monthly_cents * 10
    } else {
        plan.monthly_cents
    };
    let terms = Terms {
        subscription_id,
        account,
        plan,
        interval_months,
        extra_seats,
        plan_fee,
        trial_end,
        ended,
    };
    let mrr = (plan_fee + terms.seat_quantity() * plan.extra_seat_cents) / interval_months;
    let status = subscription_status(rng, ended, trial_end, end);
    billing.subscription.execute(params![
        subscription_id,
        account.id,
        plan.id,
        status,
        if annual { "year" } else { "month" },
        seats,
        mrr,
        timestamp(started, rng.range(8 * 3600, 18 * 3600)),
        timestamp(trial_end, 0),
        ended.map(|e| timestamp(e, rng.range(0, 86_399))),
    ])?;
    write_invoices(billing, rng, &terms, end)
}

/// A subscription's status, spelled as inconsistently as real billing
/// exports spell it.
fn subscription_status(
    rng: &mut Rng,
    ended: Option<i64>,
    trial_end: i64,
    end: i64,
) -> &'static str {
    match ended {
        Some(_) => rng.weighted(&[("canceled", 0.7), ("Cancelled", 0.2), ("CANCELED", 0.1)]),
        None if trial_end > end => "trialing",
        None => rng.weighted(&[
            ("active", 0.72),
            ("Active", 0.15),
            ("ACTIVE", 0.06),
            ("past_due", 0.04),
            ("PastDue", 0.03),
        ]),
    }
}

/// Writes a subscription's invoices, one per billing interval from the
/// trial's end, each with its lines and payments.
fn write_invoices(
    billing: &mut Billing<'_>,
    rng: &mut Rng,
    terms: &Terms<'_>,
    end: i64,
) -> rusqlite::Result<()> {
    let account = terms.account;
    let currency = match (account.region, account.country) {
        ("EMEA", "GB") => "GBP",
        ("EMEA", _) => "EUR",
        _ => "USD",
    };
    let tax_percent = match account.region {
        "EMEA" => 20,
        "APAC" => 10,
        _ => 0,
    };
    let mut period = terms.trial_end;
    while period <= end && terms.ended.is_none_or(|e| period < e) {
        billing.invoice_id += 1;
        let invoice_id = billing.invoice_id;
        let lines = invoice_lines(rng, terms);
        let subtotal: i64 = lines.iter().map(|(_, _, q, u)| q * u).sum();
        let tax = subtotal * tax_percent / 100;
        let total = subtotal + tax;
        let status = if end - period < 30 && rng.chance(0.6) {
            "open"
        } else {
            rng.weighted(&[("paid", 0.94), ("uncollectible", 0.03), ("void", 0.03)])
        };
        let (y, _, _) = civil_from_days(period);
        billing.invoice.execute(params![
            invoice_id,
            account.id,
            terms.subscription_id,
            format!("INV-{y}-{invoice_id:06}"),
            timestamp(period, 6 * 3600),
            date(period + 30),
            status,
            currency,
            subtotal,
            tax,
            total,
        ])?;
        for (line_type, description, quantity, unit) in lines {
            billing.line_id += 1;
            billing.line.execute(params![
                billing.line_id,
                invoice_id,
                line_type,
                description,
                quantity,
                unit,
                quantity * unit
            ])?;
        }
        write_payments(billing, rng, account, invoice_id, period, total, status)?;
        period = add_months(period, terms.interval_months);
    }
    Ok(())
}

/// The lines of one invoice: the plan fee, extra seats, and now and then
/// API overage or a promotional discount.
fn invoice_lines(rng: &mut Rng, terms: &Terms<'_>) -> Vec<InvoiceLine> {
    let fee_label = if terms.annual() {
        "Plan fee (annual)"
    } else {
        "Plan fee (monthly)"
    };
    let mut lines: Vec<InvoiceLine> = vec![("subscription", fee_label, 1, terms.plan_fee)];
    if terms.extra_seats > 0 {
        lines.push((
            "seats",
            "Additional seats",
            terms.seat_quantity(),
            terms.plan.extra_seat_cents,
        ));
    }
    if rng.chance(0.3) {
        lines.push(("usage", "API overage (per 1k calls)", rng.range(1, 60), 250));
    }
    if rng.chance(0.1) {
        lines.push((
            "discount",
            "Promotional discount",
            1,
            -(terms.plan_fee / 10),
        ));
    }
    lines
}

fn write_payments(
    billing: &mut Billing<'_>,
    rng: &mut Rng,
    account: &Account,
    invoice_id: i64,
    issued: i64,
    total: i64,
    status: &str,
) -> rusqlite::Result<()> {
    let method = match account.segment {
        "SMB" => "card",
        "Mid-Market" => rng.weighted(&[("card", 0.6), ("ach", 0.4)]),
        _ => rng.weighted(&[("wire", 0.6), ("ach", 0.4)]),
    };
    let mut attempts: Vec<(i64, i64, &str)> = Vec::new();
    match status {
        "paid" => {
            if rng.chance(0.05) {
                attempts.push((issued + 1, total, "failed"));
            }
            let paid = issued + rng.range(0, 15);
            attempts.push((paid, total, "succeeded"));
            if rng.chance(0.01) {
                attempts.push((paid + rng.range(5, 40), -total, "refunded"));
            }
        }
        "uncollectible" => {
            for k in 0..rng.range(1, 3) {
                attempts.push((issued + 1 + 7 * k, total, "failed"));
            }
        }
        _ => {}
    }
    for (day, amount, outcome) in attempts {
        billing.payment_id += 1;
        billing.payment.execute(params![
            billing.payment_id,
            invoice_id,
            account.id,
            timestamp(day, rng.range(0, 86_399)),
            amount,
            method,
            outcome,
        ])?;
    }
    Ok(())
}

fn insert_tickets(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    accounts: &[Account],
    users: &[User],
    end: i64,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare(
        "INSERT INTO support_tickets (id, account_id, requester_user_id, opened_at, first_response_at, closed_at, priority, category, status, satisfaction_score) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut users_by_account: Vec<Vec<&User>> = vec![Vec::new(); accounts.len()];
    for user in users {
        users_by_account[user.account].push(user);
    }
    let mut id = 0i64;
    for (index, account) in accounts.iter().enumerate() {
        let alive_until = account.deleted.unwrap_or(end);
        let months = ((alive_until - account.created) as f64 / 30.0).max(0.5);
        let per_month = match account.segment {
            "SMB" => 0.12,
            "Mid-Market" => 0.3,
            _ => 0.8,
        };
        let n = (months * per_month * (0.5 + rng.unit())).round() as i64;
        for _ in 0..n {
            id += 1;
            let opened = rng.range(account.created, alive_until);
            let priority = rng.weighted(&[
                ("low", 0.25),
                ("normal", 0.5),
                ("high", 0.2),
                ("urgent", 0.05),
            ]);
            let category = rng.weighted(&[
                ("how_to", 0.35),
                ("bug", 0.25),
                ("billing", 0.2),
                ("feature_request", 0.15),
                ("outage", 0.05),
            ]);
            let opened_at = opened * 86_400 + rng.range(7 * 3600, 20 * 3600);
            let response_minutes = match priority {
                "urgent" => rng.range(5, 60),
                "high" => rng.range(15, 240),
                _ => rng.range(30, 1_440),
            };
            let responded_at = opened_at + response_minutes * 60;
            let recent = end - opened < 7;
            let status = if recent {
                rng.weighted(&[("open", 0.6), ("pending", 0.4)])
            } else {
                rng.weighted(&[("closed", 0.7), ("solved", 0.3)])
            };
            let responded = !recent || rng.chance(0.5);
            let closed_at = (!recent).then(|| responded_at + rng.range(600, 10 * 86_400));
            let score = (closed_at.is_some() && rng.chance(0.55))
                .then(|| rng.weighted(&[(5, 0.45), (4, 0.3), (3, 0.12), (2, 0.07), (1, 0.06)]));
            let requester = (rng.chance(0.9) && !users_by_account[index].is_empty())
                .then(|| rng.pick(&users_by_account[index]).id);
            stmt.execute(params![
                id,
                account.id,
                requester,
                timestamp_at(opened_at),
                responded.then(|| timestamp_at(responded_at)),
                closed_at.map(timestamp_at),
                priority,
                category,
                status,
                score,
            ])?;
        }
    }
    Ok(())
}

fn insert_events(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    accounts: &[Account],
    users: &[User],
    end: i64,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare(
        "INSERT INTO product_events (id, account_id, user_id, occurred_at, event_name, properties) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut id = 0i64;
    while (id as usize) < PRODUCT_EVENTS {
        let user = &users[rng.range(0, users.len() as i64 - 1) as usize];
        let account = &accounts[user.account];
        let until = user
            .deleted
            .unwrap_or(end)
            .min(account.deleted.unwrap_or(end));
        if until <= user.created {
            continue;
        }
        let day = rng.range(user.created, until);
        if weekday(day) >= 5 && !rng.chance(0.3) {
            continue;
        }
        id += 1;
        let event = rng.weighted(&[
            ("login", 0.3),
            ("dashboard_viewed", 0.3),
            ("report_created", 0.12),
            ("export_csv", 0.08),
            ("invite_sent", 0.05),
            ("api_call", 0.15),
        ]);
        let properties = match event {
            "api_call" => format!(
                r#"{{"source":"api","endpoint":"{}","status":{}}}"#,
                rng.pick(&["/v1/reports", "/v1/metrics", "/v1/exports"]),
                if rng.chance(0.97) { 200 } else { 500 }
            ),
            "export_csv" => format!(r#"{{"source":"web","rows":{}}}"#, rng.range(10, 50_000)),
            _ => format!(
                r#"{{"source":"{}"}}"#,
                rng.weighted(&[("web", 0.8), ("mobile", 0.2)])
            ),
        };
        stmt.execute(params![
            id,
            account.id,
            user.id,
            timestamp(day, rng.range(6 * 3600, 23 * 3600)),
            event,
            properties
        ])?;
    }
    Ok(())
}
