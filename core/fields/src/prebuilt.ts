/** Prebuilt extraction schemas for the spec's categories: invoice, contract, resume, form, financial. */
import type { FieldDefinition } from '@quire/core';

export type PrebuiltCategory = 'invoice' | 'contract' | 'resume' | 'form' | 'financial';

export interface PrebuiltSchema {
  id: string;
  name: string;
  category: PrebuiltCategory;
  description: string;
  fields: FieldDefinition[];
}

const f = (name: string, type: FieldDefinition['type'], description: string, required = false): FieldDefinition => ({ name, type, description, ...(required ? { required } : {}) });
const list = (name: string, description: string, properties: Record<string, FieldDefinition>): FieldDefinition => ({ name, type: 'array', description, items: { name: 'item', type: 'object', properties } });
const strings = (name: string, description: string): FieldDefinition => ({ name, type: 'array', description, items: { name: 'item', type: 'string' } });

const lineItems = list('line_items', 'Invoiced lines', {
  description: f('description', 'string', 'Product or service'),
  quantity: f('quantity', 'number', 'Quantity'),
  unit_price: f('unit_price', 'number', 'Price per unit'),
  amount: f('amount', 'number', 'Line total'),
});

export const PREBUILT_SCHEMAS: readonly PrebuiltSchema[] = [
  {
    id: 'invoice',
    name: 'Invoice',
    category: 'invoice',
    description: 'Supplier invoice: parties, identifiers, dates, amounts, payment details and line items.',
    fields: [
      f('invoice_number', 'string', 'Invoice number', true),
      f('date', 'date', 'Invoice date', true),
      f('due_date', 'date', 'Payment due date'),
      f('vendor', 'string', 'Seller / issuer company name'),
      f('vendor_address', 'string', 'Seller address'),
      f('vendor_vat_id', 'string', 'Seller VAT / tax identification number'),
      f('customer', 'string', 'Bill-to customer name'),
      f('customer_address', 'string', 'Bill-to address'),
      f('order_number', 'string', 'Purchase order number'),
      f('currency', 'string', 'ISO currency code'),
      f('subtotal', 'number', 'Total before tax'),
      f('tax', 'number', 'Tax / VAT amount'),
      f('total', 'number', 'Total amount due', true),
      f('iban', 'string', 'IBAN for payment'),
      f('payment_terms', 'string', 'Payment terms'),
      lineItems,
    ],
  },
  {
    id: 'receipt',
    name: 'Receipt',
    category: 'invoice',
    description: 'Till or card receipt: merchant, date, total and tax.',
    fields: [
      f('vendor', 'string', 'Merchant name', true),
      f('legal_entity', 'string', 'Registered company behind the shop (owned by / operated by)'),
      f('address', 'string', 'Merchant address'),
      f('date', 'date', 'Purchase date', true),
      f('total', 'number', 'Total paid', true),
      f('tax', 'number', 'Tax included'),
      f('currency', 'string', 'ISO currency code'),
      f('payment_method', 'string', 'Cash, card, ...'),
      lineItems,
    ],
  },
  {
    id: 'purchase_order',
    name: 'Purchase order',
    category: 'invoice',
    description: 'Purchase order issued by a buyer.',
    fields: [
      f('order_number', 'string', 'PO number', true),
      f('order_date', 'date', 'Order date', true),
      f('customer', 'string', 'Buyer'),
      f('vendor', 'string', 'Supplier'),
      f('delivery_date', 'date', 'Requested delivery date'),
      f('total', 'number', 'Order total'),
      f('currency', 'string', 'ISO currency code'),
      lineItems,
    ],
  },
  {
    id: 'contract',
    name: 'Contract',
    category: 'contract',
    description: 'Commercial agreement: parties, term, value, law and signatures.',
    fields: [
      f('title', 'string', 'Agreement title'),
      strings('parties', 'Contracting parties'),
      f('effective_date', 'date', 'Effective / commencement date', true),
      f('end_date', 'date', 'Expiration or end date'),
      f('term', 'string', 'Duration of the agreement'),
      f('renewal', 'string', 'Renewal terms'),
      f('termination_notice', 'string', 'Notice period for termination'),
      f('contract_value', 'number', 'Total contract value'),
      f('currency', 'string', 'ISO currency code'),
      f('payment_terms', 'string', 'Payment terms'),
      f('governing_law', 'string', 'Governing law / jurisdiction'),
      f('signature_date', 'date', 'Date signed'),
      f('is_signed', 'boolean', 'Whether the agreement is signed'),
    ],
  },
  {
    id: 'nda',
    name: 'Non-disclosure agreement',
    category: 'contract',
    description: 'Mutual or one-way NDA.',
    fields: [
      strings('parties', 'Parties to the NDA'),
      f('effective_date', 'date', 'Effective date', true),
      f('mutual', 'boolean', 'Whether obligations are mutual'),
      f('confidentiality_period', 'string', 'How long information stays confidential'),
      f('governing_law', 'string', 'Governing law'),
    ],
  },
  {
    id: 'resume',
    name: 'Resume / CV',
    category: 'resume',
    description: 'Candidate profile: contact details, experience, education, skills.',
    fields: [
      f('name', 'string', 'Full name', true),
      f('email', 'string', 'E-mail address'),
      f('phone', 'string', 'Phone number'),
      f('address', 'string', 'Location or address'),
      f('website', 'string', 'Website, portfolio or profile URL'),
      f('title', 'string', 'Current or target job title'),
      f('summary', 'string', 'Profile summary'),
      list('experience', 'Work experience', {
        company: f('company', 'string', 'Employer'),
        position: f('position', 'string', 'Job title'),
        start_date: f('start_date', 'date', 'Start'),
        end_date: f('end_date', 'date', 'End'),
        description: f('description', 'string', 'Responsibilities'),
      }),
      list('education', 'Education', {
        institution: f('institution', 'string', 'School or university'),
        degree: f('degree', 'string', 'Degree'),
        end_date: f('end_date', 'date', 'Graduation'),
      }),
      strings('skills', 'Skills'),
      strings('languages', 'Languages'),
    ],
  },
  {
    id: 'form',
    name: 'Application form',
    category: 'form',
    description: 'Generic personal form: applicant, contact, date, signature and consent boxes.',
    fields: [
      f('name', 'string', 'Full name', true),
      f('date_of_birth', 'date', 'Date of birth'),
      f('address', 'string', 'Address'),
      f('email', 'string', 'E-mail'),
      f('phone', 'string', 'Phone'),
      f('reference', 'string', 'Reference / case number'),
      f('date', 'date', 'Form date'),
      f('signed', 'boolean', 'Signature present'),
      f('consent', 'boolean', 'Consent box ticked'),
    ],
  },
  {
    id: 'w9',
    name: 'W-9 (US taxpayer identification)',
    category: 'form',
    description: 'US Form W-9 request for taxpayer identification number.',
    fields: [
      f('name', 'string', 'Name as shown on the tax return', true),
      f('business_name', 'string', 'Business name, if different'),
      f('tax_classification', 'string', 'Federal tax classification'),
      f('address', 'string', 'Address'),
      f('tin', 'string', 'SSN or EIN'),
      f('signature_date', 'date', 'Date signed'),
    ],
  },
  {
    id: 'bank_statement',
    name: 'Bank statement',
    category: 'financial',
    description: 'Account statement with balances and transactions.',
    fields: [
      f('bank_name', 'string', 'Bank'),
      f('account_holder', 'string', 'Account holder'),
      f('account_number', 'string', 'Account number', true),
      f('iban', 'string', 'IBAN'),
      f('statement_start', 'date', 'Period start'),
      f('statement_end', 'date', 'Period end'),
      f('opening_balance', 'number', 'Opening balance'),
      f('closing_balance', 'number', 'Closing balance', true),
      f('currency', 'string', 'ISO currency code'),
      list('transactions', 'Transactions', {
        date: f('date', 'date', 'Booking date'),
        description: f('description', 'string', 'Description'),
        amount: f('amount', 'number', 'Amount (negative for debits)'),
        balance: f('balance', 'number', 'Balance after the transaction'),
      }),
    ],
  },
  {
    id: 'financial_statement',
    name: 'Financial statement',
    category: 'financial',
    description: 'Income statement / balance sheet headline figures.',
    fields: [
      f('company', 'string', 'Reporting entity', true),
      f('period_end', 'date', 'End of the reporting period'),
      f('currency', 'string', 'Reporting currency'),
      f('revenue', 'number', 'Revenue / turnover'),
      f('operating_income', 'number', 'Operating income (EBIT)'),
      f('net_income', 'number', 'Net income / profit'),
      f('total_assets', 'number', 'Total assets'),
      f('total_liabilities', 'number', 'Total liabilities'),
      f('equity', 'number', "Shareholders' equity"),
    ],
  },
];
