#!/usr/bin/env python3
"""Builds the demo emails of `teu serve --demo` (data/email/*.eml) and their PDF attachments
(data/email/attachments/*.pdf).

The reference data (bills of lading, bookings, container, vessels, voyages, ports, terminals)
is that of the bundled DCSA samples, data/dcsa/tnt-220-response.json and
tnt-300-response.json, so the documents belong to the demo shipments. Parties, goods and
amounts are invented; every address is at a reserved .example domain, except the demo
account's inbound address demo@inbound.teu.local.

Requires fpdf2 (pip install fpdf2); PDFs are written with fixed creation dates and the
messages with fixed boundaries, so a rerun reproduces the same bytes. Check the PDFs with
`pdfinfo` / `pdftotext`.

    python3 data/email/make_demo_emails.py
"""

import datetime
import pathlib
from email.message import EmailMessage
from email.policy import SMTP

from fpdf import FPDF

HERE = pathlib.Path(__file__).resolve().parent
ATTACHMENTS = HERE / "attachments"
INBOUND = "demo@inbound.teu.local"


class Doc(FPDF):
    def __init__(self, title, issuer, created):
        super().__init__(format="A4")
        self.doc_title = title
        self.issuer = issuer
        self.set_creation_date(created)
        self.set_title(title)
        self.set_author(issuer)
        self.set_creator("teu demo data (fpdf2)")
        self.set_auto_page_break(True, margin=18)
        self.add_page()

    def header(self):
        self.set_font("Helvetica", "B", 15)
        self.cell(0, 9, self.doc_title, new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", "", 9)
        self.cell(0, 5, self.issuer, new_x="LMARGIN", new_y="NEXT")
        self.line(10, self.get_y() + 2, 200, self.get_y() + 2)
        self.ln(6)

    def footer(self):
        self.set_y(-14)
        self.set_font("Helvetica", "I", 8)
        self.cell(0, 6, f"{self.doc_title} - page {self.page_no()}", align="C")

    def fields(self, rows):
        for label, value in rows:
            self.set_font("Helvetica", "B", 9)
            self.cell(55, 6, label)
            self.set_font("Helvetica", "", 9)
            self.multi_cell(0, 6, value, new_x="LMARGIN", new_y="NEXT")
        self.ln(3)

    def section(self, title):
        self.set_font("Helvetica", "B", 11)
        self.cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")

    def table(self, head, rows, widths):
        self.set_font("Helvetica", "B", 9)
        for h, w in zip(head, widths):
            self.cell(w, 7, h, border=1)
        self.ln()
        self.set_font("Helvetica", "", 9)
        for row in rows:
            for v, w in zip(row, widths):
                self.cell(w, 7, v, border=1)
            self.ln()
        self.ln(3)

    def text_block(self, text):
        self.set_font("Helvetica", "", 9)
        self.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(2)


def utc(*args):
    return datetime.datetime(*args, tzinfo=datetime.timezone.utc)


def arrival_notice():
    d = Doc("ARRIVAL NOTICE", "Import services, on behalf of the vessel operator (MAEU)",
            utc(2021, 1, 9, 13, 55))
    d.fields([
        ("Notice date", "09 Jan 2021"),
        ("Bill of lading", "reserved-HHL123"),
        ("Booking", "ABC123123123"),
        ("Consignee / notify", "Demo Imports Ltd, 12 Quai de la Gare, 75013 Paris, France"),
    ])
    d.section("Vessel and arrival")
    d.fields([
        ("Vessel", "KING OF THE SEAS (IMO 9321483, flag DE, call sign NCVV)"),
        ("Voyage / service", "2103N (export 2103S) / FE1"),
        ("Vessel operator", "MAEU"),
        ("Port of discharge", "Paris, France (UN/LOCODE FRPAR)"),
        ("Terminal", "ADT (SMDG terminal code)"),
        ("Arrived", "09 Jan 2021 14:12 local time (UTC+01:00) - delayed by weather (WEA)"),
    ])
    d.section("Equipment")
    d.table(["Container", "ISO type", "Size/type", "Status", "Gross weight"],
            [["APZU4812090", "22GP", "20' dry standard", "Full, import", "18,420 kg"]],
            [38, 25, 40, 40, 37])
    d.section("Charges due before release")
    d.table(["Charge", "Basis", "Amount"],
            [["Terminal handling charge (import)", "per container", "EUR 235.00"],
             ["Documentation fee", "per B/L", "EUR 55.00"],
             ["Total", "", "EUR 290.00"]],
            [80, 50, 50])
    d.text_block(
        "Free time at the terminal: 5 calendar days from discharge. Demurrage applies from the "
        "6th day. The container is released against the original bill of lading, or a "
        "telex/express release, and payment of the charges above. Please arrange customs "
        "clearance and book a pickup appointment with terminal ADT.")
    return d


def bill_of_lading():
    d = Doc("BILL OF LADING (DRAFT) - HHL71800000", "Example Carrier EXCO (SMDG party code EXCO)",
            utc(2026, 1, 16, 12, 0))
    d.fields([
        ("B/L number", "HHL71800000"),
        ("Booking", "ABC709951"),
        ("Shipper", "Harbour Hill Logistics Ltd, 3 Western Docks, Southampton SO15 1AA, United Kingdom"),
        ("Consignee", "Demo Imports Ltd, 12 Quai de la Gare, 75013 Paris, France"),
        ("Notify party", "Same as consignee"),
    ])
    d.section("Routing")
    d.fields([
        ("Vessel / voyage", "EXAMPLE VESSEL BETA (IMO 7654321, flag GB, call sign WXYZ) / V002E"),
        ("Service", "SVC002"),
        ("Port of loading", "Southampton, United Kingdom (GBSOU) - Example Terminal Alpha"),
        ("Shipped on board", "16 Jan 2026 11:30 UTC"),
        ("Port of discharge", "Antwerp, Belgium (BEANR)"),
        ("Place of delivery", "Paris, France (FRPAR)"),
    ])
    d.section("Particulars furnished by the shipper")
    d.table(["Container", "Type", "Packages", "Description", "Gross kg", "m3"],
            [["APZU4812090", "45G1", "22 pallets", "Kitchen appliances", "16,850", "61.2"]],
            [30, 18, 25, 62, 25, 20])
    d.fields([
        ("Freight", "Prepaid"),
        ("Number of originals", "3 (three)"),
        ("Place and date of issue", "Southampton, 16 Jan 2026"),
    ])
    d.text_block(
        "DRAFT - for checking only. Please confirm the particulars above within 24 hours; "
        "the original bills of lading are issued after confirmation and payment of freight.")
    return d


INVOICE_LINES = [
    ("KA-200", "Stand mixer 5 l, 1000 W", "240", "38.50"),
    ("KA-310", "Food processor 3 l", "180", "42.00"),
    ("KA-455", "Espresso machine, 15 bar", "96", "88.00"),
    ("KA-520", "Kettle 1.7 l, stainless", "600", "9.75"),
]


def commercial_invoice():
    d = Doc("COMMERCIAL INVOICE INV-2026-0117", "Harbour Hill Logistics Ltd, Southampton, United Kingdom",
            utc(2026, 1, 17, 9, 0))
    d.fields([
        ("Invoice date", "17 Jan 2026"),
        ("Seller", "Harbour Hill Logistics Ltd, 3 Western Docks, Southampton SO15 1AA, United Kingdom"),
        ("Buyer", "Demo Imports Ltd, 12 Quai de la Gare, 75013 Paris, France"),
        ("Terms", "CIF Antwerp (Incoterms 2020), payment 30 days net"),
        ("Transport", "B/L HHL71800000, booking ABC709951, container APZU4812090, "
                      "EXAMPLE VESSEL BETA V002E, GBSOU to BEANR"),
    ])
    rows = []
    total = 0.0
    for sku, desc, qty, price in INVOICE_LINES:
        amount = int(qty) * float(price)
        total += amount
        rows.append([sku, desc, qty, f"{float(price):,.2f}", f"{amount:,.2f}"])
    rows.append(["", "Total (EUR)", "", "", f"{total:,.2f}"])
    d.table(["Item", "Description", "Qty", "Unit EUR", "Amount EUR"], rows, [22, 78, 20, 30, 30])
    d.text_block("Country of origin: United Kingdom. HS codes: 8509.40 (mixers, processors), "
                 "8516.71 (coffee machines), 8516.79 (kettles).")
    return d


def packing_list():
    d = Doc("PACKING LIST PL-2026-0117", "Harbour Hill Logistics Ltd, Southampton, United Kingdom",
            utc(2026, 1, 17, 9, 5))
    d.fields([
        ("Invoice", "INV-2026-0117"),
        ("B/L / container", "HHL71800000 / APZU4812090 (45G1)"),
    ])
    d.table(["Pallets", "Item", "Units", "Net kg", "Gross kg"],
            [["1-6", "KA-200", "240", "3,840", "4,100"],
             ["7-11", "KA-310", "180", "2,520", "2,760"],
             ["12-15", "KA-455", "96", "1,920", "2,110"],
             ["16-22", "KA-520", "600", "7,200", "7,880"],
             ["22 pallets", "", "1,116", "15,480", "16,850"]],
            [30, 40, 30, 40, 40])
    return d


def invoice_total():
    return sum(int(qty) * float(price) for _, _, qty, price in INVOICE_LINES)


def pdf(doc, name):
    path = ATTACHMENTS / name
    doc.output(str(path))
    return path.read_bytes()


def message(msg_id, date, sender, subject, body, attachments, cc=None, references=None,
            boundary="teu-demo"):
    m = EmailMessage()
    m["From"] = sender
    m["To"] = f"Demo Imports documents <{INBOUND}>"
    if cc:
        m["Cc"] = cc
    m["Subject"] = subject
    m["Date"] = date
    m["Message-ID"] = f"<{msg_id}>"
    if references:
        m["References"] = " ".join(f"<{r}>" for r in references)
    m.set_content(body)
    for name, data in attachments:
        m.add_attachment(data, maintype="application", subtype="pdf", filename=name)
    m.set_boundary(boundary)
    # Long enough lines that no header is folded (bodies are already encoded to 76 columns).
    return m.as_bytes(policy=SMTP.clone(max_line_length=200))


def main():
    ATTACHMENTS.mkdir(exist_ok=True)
    an = pdf(arrival_notice(), "ArrivalNotice_reserved-HHL123.pdf")
    bl = pdf(bill_of_lading(), "BL_HHL71800000_draft.pdf")
    inv = pdf(commercial_invoice(), "INV-2026-0117.pdf")
    pl = pdf(packing_list(), "PL-2026-0117.pdf")

    (HERE / "01-arrival-notice-reserved-HHL123.eml").write_bytes(message(
        "an-reserved-HHL123.20210109@import-desk.example",
        "Sat, 09 Jan 2021 15:05:00 +0100",
        "Import Desk <import.desk@import-desk.example>",
        "Arrival Notice - B/L reserved-HHL123 - APZU4812090 - KING OF THE SEAS 2103N",
        "Dear customer,\n\n"
        "KING OF THE SEAS voyage 2103N arrived at Paris (FRPAR), terminal ADT, on 09 Jan 2021 "
        "at 14:12 local time, delayed by bad weather.\n\n"
        "Container APZU4812090 (22GP) under B/L reserved-HHL123, booking ABC123123123.\n"
        "The arrival notice with the charges due before release is attached.\n\n"
        "Kind regards,\nImport Desk\n",
        [("ArrivalNotice_reserved-HHL123.pdf", an)],
        boundary="teu-demo-arrival-notice"))

    (HERE / "02-bill-of-lading-HHL71800000.eml").write_bytes(message(
        "bl-HHL71800000.20260116@exco-docs.example",
        "Fri, 16 Jan 2026 12:10:00 +0000",
        "EXCO Documentation <bl.desk@exco-docs.example>",
        "Draft B/L HHL71800000 / booking ABC709951 - EXAMPLE VESSEL BETA V002E",
        "Hello,\n\n"
        "Please find attached the draft bill of lading HHL71800000 for booking ABC709951, "
        "container APZU4812090 (45G1), shipped on board EXAMPLE VESSEL BETA voyage V002E at "
        "Southampton (GBSOU) on 16 Jan 2026.\n\n"
        "Please check and confirm within 24 hours.\n\nEXCO Documentation\n",
        [("BL_HHL71800000_draft.pdf", bl)],
        cc="Harbour Hill Logistics <export@harbour-hill.example>",
        boundary="teu-demo-bill-of-lading"))

    (HERE / "03-fwd-invoice-INV-2026-0117.eml").write_bytes(message(
        "fwd-inv-2026-0117.20260119@demo-imports.example",
        "Mon, 19 Jan 2026 08:42:00 +0100",
        "Claire Martin <claire.martin@demo-imports.example>",
        "Fwd: Commercial invoice INV-2026-0117 and packing list - B/L HHL71800000",
        "For the file of B/L HHL71800000.\n\n"
        "---------- Forwarded message ----------\n"
        "From: Harbour Hill Logistics <export@harbour-hill.example>\n"
        "Date: Sat, 17 Jan 2026 09:20:00 +0000\n"
        "Subject: Commercial invoice INV-2026-0117 and packing list - B/L HHL71800000\n\n"
        "Dear Claire,\n\n"
        f"attached are commercial invoice INV-2026-0117 (EUR {invoice_total():,.2f}, CIF Antwerp) and the "
        "packing list for container APZU4812090 on EXAMPLE VESSEL BETA V002E, B/L "
        "HHL71800000.\n\nBest regards,\nHarbour Hill Logistics\n",
        [("INV-2026-0117.pdf", inv), ("PL-2026-0117.pdf", pl)],
        references=["inv-2026-0117@harbour-hill.example"],
        boundary="teu-demo-invoice"))


if __name__ == "__main__":
    main()
