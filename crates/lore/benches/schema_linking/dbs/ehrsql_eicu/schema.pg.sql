-- ehrsql_eicu: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/eicu), MIT-LCP/eicu.mit.edu (_eicutables/*.md); see README.md

CREATE TABLE "patient" (
  "uniquepid" VARCHAR(10) NOT NULL,
  "patienthealthsystemstayid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "gender" VARCHAR(25) NOT NULL,
  "age" VARCHAR(10) NOT NULL,
  "ethnicity" VARCHAR(50),
  "hospitalid" INTEGER NOT NULL,
  "wardid" INTEGER NOT NULL,
  "admissionheight" NUMERIC(10,2),
  "admissionweight" NUMERIC(10,2),
  "dischargeweight" NUMERIC(10,2),
  "hospitaladmittime" TIMESTAMP NOT NULL,
  "hospitaladmitsource" VARCHAR(30) NOT NULL,
  "unitadmittime" TIMESTAMP NOT NULL,
  "unitdischargetime" TIMESTAMP,
  "hospitaldischargetime" TIMESTAMP,
  "hospitaldischargestatus" VARCHAR(10),
  PRIMARY KEY ("patientunitstayid")
);

CREATE TABLE "diagnosis" (
  "diagnosisid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "diagnosisname" VARCHAR(200) NOT NULL,
  "diagnosistime" TIMESTAMP NOT NULL,
  "icd9code" VARCHAR(100),
  PRIMARY KEY ("diagnosisid")
);

CREATE TABLE "treatment" (
  "treatmentid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "treatmentname" VARCHAR(200) NOT NULL,
  "treatmenttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("treatmentid")
);

CREATE TABLE "lab" (
  "labid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "labname" VARCHAR(256) NOT NULL,
  "labresult" NUMERIC(11,4) NOT NULL,
  "labresulttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("labid")
);

CREATE TABLE "medication" (
  "medicationid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "drugname" VARCHAR(220) NOT NULL,
  "dosage" VARCHAR(60) NOT NULL,
  "routeadmin" VARCHAR(120) NOT NULL,
  "drugstarttime" TIMESTAMP,
  "drugstoptime" TIMESTAMP,
  PRIMARY KEY ("medicationid")
);

CREATE TABLE "cost" (
  "costid" INTEGER NOT NULL,
  "uniquepid" VARCHAR(10) NOT NULL,
  "patienthealthsystemstayid" INTEGER NOT NULL,
  "eventtype" VARCHAR(20) NOT NULL,
  "eventid" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("costid")
);

CREATE TABLE "allergy" (
  "allergyid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "drugname" VARCHAR(255),
  "allergyname" VARCHAR(255) NOT NULL,
  "allergytime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("allergyid")
);

CREATE TABLE "intakeoutput" (
  "intakeoutputid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "cellpath" VARCHAR(500) NOT NULL,
  "celllabel" VARCHAR(255) NOT NULL,
  "cellvaluenumeric" NUMERIC(12,4) NOT NULL,
  "intakeoutputtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("intakeoutputid")
);

CREATE TABLE "microlab" (
  "microlabid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "culturesite" VARCHAR(255) NOT NULL,
  "organism" VARCHAR(255) NOT NULL,
  "culturetakentime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("microlabid")
);

CREATE TABLE "vitalperiodic" (
  "vitalperiodicid" BIGINT NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "temperature" NUMERIC(11,4),
  "sao2" INTEGER,
  "heartrate" INTEGER,
  "respiration" INTEGER,
  "systemicsystolic" INTEGER,
  "systemicdiastolic" INTEGER,
  "systemicmean" INTEGER,
  "observationtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("vitalperiodicid")
);

COMMENT ON TABLE "patient" IS 'Contains patient demographics and admission and discharge details for hospital and ICU stays.';
COMMENT ON COLUMN "patient"."uniquepid" IS 'ID for a unique patient.';
COMMENT ON COLUMN "patient"."patienthealthsystemstayid" IS 'surrogate key for the patient health system stay (hospital stay)';
COMMENT ON COLUMN "patient"."patientunitstayid" IS 'surrogate key for ICU Stay';
COMMENT ON COLUMN "patient"."gender" IS 'gender of the patient: Male, Female, Unknown, Other, NULL';
COMMENT ON COLUMN "patient"."age" IS 'age of the patient in full years. If the patient is over 89 years old specify "> 89" e.g.: 79, 36, 52, "> 89", etc.';
COMMENT ON COLUMN "patient"."ethnicity" IS 'picklist ethnicity of the patient: Asian, Caucasian, African American, Native American, Hispanic, Other/Unknown, NULL';
COMMENT ON COLUMN "patient"."hospitalid" IS 'surrogate key for the hospital associated with the patient unit stay';
COMMENT ON COLUMN "patient"."wardid" IS 'surrogate key for the ward associated with the patient unit stay';
COMMENT ON COLUMN "patient"."admissionheight" IS 'admission height of the patient in cm e.g.: 160.0000, 182.9000, 175.3000, etc.';
COMMENT ON COLUMN "patient"."admissionweight" IS 'admission weight of the patient in kilograms e.g.: 69.7000, 70.9000, 173.0000, etc.';
COMMENT ON COLUMN "patient"."dischargeweight" IS 'patient weight at time of unit discharge in kilograms e.g.: 69.7000, 70.9000, 173.0000, etc.';
COMMENT ON COLUMN "patient"."hospitaladmitsource" IS 'location from where the patient was admitted to the hospital e.g.: Direct Admit, Floor, Chest Pain Center. etc.';
COMMENT ON COLUMN "patient"."hospitaldischargestatus" IS 'specifies patient’s condition upon leaving the hospital: Alive, Expired, or NULL';
COMMENT ON TABLE "diagnosis" IS 'Patient diagnosis recorded in the active diagnosis table. Sequence does indicate relative severity. diagnosisPriority is not required.';
COMMENT ON COLUMN "diagnosis"."diagnosisid" IS 'surrogate key for the diagnosis';
COMMENT ON COLUMN "diagnosis"."patientunitstayid" IS 'a globally unique identifier (GUID) used as a foreign key link to the patient table';
COMMENT ON COLUMN "diagnosis"."icd9code" IS 'ICD-9 code for the diagnosis e.g.: 518.81, 537.9, 491.20, etc.';
COMMENT ON TABLE "treatment" IS 'The treatment table allows users to document, in a structured format, specific active treatments for the patient.';
COMMENT ON COLUMN "treatment"."treatmentid" IS 'surrogate key for the treatment';
COMMENT ON COLUMN "treatment"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON TABLE "lab" IS 'Laboratory tests that have have been mapped to a standard set of measurements. Unmapped measurements are recorded in the customLab table.';
COMMENT ON COLUMN "lab"."labid" IS 'surrogate ID for the labs data';
COMMENT ON COLUMN "lab"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON COLUMN "lab"."labname" IS 'the picklist name of the lab e.g.: CPK, troponin - I, RBC, HCO3, Total CO2, etc. This is hospital specific.';
COMMENT ON COLUMN "lab"."labresult" IS 'the numeric value of the lab e.g.: 7.3230,, 58.0000, 24.8000';
COMMENT ON TABLE "medication" IS 'The medications table reflects the active medication orders for patients. These are orders but do not necessarily reflect administration to the patient. Titration of continuous infusion medications can be obtained in the infusionDrug table.';
COMMENT ON COLUMN "medication"."medicationid" IS 'surrogate key for drugs';
COMMENT ON COLUMN "medication"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON COLUMN "medication"."drugname" IS 'name of selected drug e.g.: SODIUM CHLORIDE 0.9%, ONDANSETRON HCL, MORPHINE SULFATE, etc.';
COMMENT ON COLUMN "medication"."dosage" IS 'the dosage of the drug e.g.: 500 ml, 1 mcg/kg/min, 2.4 units/hour, etc.';
COMMENT ON COLUMN "medication"."routeadmin" IS 'the picklist route of administration for the drug e.g.: IV (intravenous), IV - continuous infusion (intravenous), PO (oral), etc.';
COMMENT ON TABLE "allergy" IS 'The allergy tables contains details of patient allergies. The data is entered in the patient note forms.';
COMMENT ON COLUMN "allergy"."allergyid" IS 'surrogate key for the allergy';
COMMENT ON COLUMN "allergy"."patientunitstayid" IS 'a globally unique identifier (GUID) used as a foreign key link to the patient table';
COMMENT ON COLUMN "allergy"."drugname" IS 'name of the selected admission drug e.g.: POTASSIUM CHLORIDE/D5NS METAXALONE PRAVACHOL';
COMMENT ON COLUMN "allergy"."allergyname" IS 'allergy picklist name e.g.: penicillins pollen shellfish';
COMMENT ON TABLE "intakeoutput" IS 'Intake and output recorded for patients. Entered from the nursing flowsheet (either manually or interfaced into the hospital system).';
COMMENT ON COLUMN "intakeoutput"."intakeoutputid" IS 'surrogate key for the intake output data';
COMMENT ON COLUMN "intakeoutput"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON COLUMN "intakeoutput"."cellpath" IS 'the root path of info from the label in I and O e.g.: flowsheet';
COMMENT ON COLUMN "intakeoutput"."celllabel" IS 'The predefined row label text from I and O e.g.: Enteral flush/meds panda, D5 0.45 NS w/20 mEq KCL 1000 ml, Continuous infusion meds, etc.';
COMMENT ON COLUMN "intakeoutput"."cellvaluenumeric" IS 'the value of the current I and O row e.g.: 100.0000, 60.9000, 10.0000, etc.';
COMMENT ON TABLE "microlab" IS 'Microbiology data.';
COMMENT ON COLUMN "microlab"."microlabid" IS 'surrogate key for the micro lab';
COMMENT ON COLUMN "microlab"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON COLUMN "microlab"."culturesite" IS 'picklist site name from where the culture was taken e.g.: Wound, Drainage Fluid, Sputum, Expectorated, Nasopharynx, etc.';
COMMENT ON COLUMN "microlab"."organism" IS 'picklist organism found e.g.: Staphylococcus aureus, Pseudomonas aeruginosa, no growth, etc.';
COMMENT ON TABLE "vitalperiodic" IS '"Periodic" data refers to data which is consistently interfaced from bedside vital signs monitors into eCareManager. Data are generally interfaced as 1 minute averages, and archived into the vitalPeriodic table as 5 minute median values.';
COMMENT ON COLUMN "vitalperiodic"."vitalperiodicid" IS 'surrogate key for periodic value';
COMMENT ON COLUMN "vitalperiodic"."patientunitstayid" IS 'foreign key link to the patient table';
COMMENT ON COLUMN "vitalperiodic"."temperature" IS 'patient''s temperature value in celsius e.g.: 36.1000, 37.8000, 35.5000, etc.';
COMMENT ON COLUMN "vitalperiodic"."sao2" IS 'patient''s spO2 value e.g.: 99, 94, 98, etc.';
COMMENT ON COLUMN "vitalperiodic"."heartrate" IS 'patient''s heart rate value e.g.: 102, 104, 70, etc.';
COMMENT ON COLUMN "vitalperiodic"."respiration" IS 'patient''s respiration value e.g.: 25, 20, 17, etc.';
COMMENT ON COLUMN "vitalperiodic"."systemicsystolic" IS 'patient''s systolic value e.g.: 120, 103, 106, etc.';
COMMENT ON COLUMN "vitalperiodic"."systemicdiastolic" IS 'patient''s diastolic value e.g.: 73, 65, 63, etc.';
COMMENT ON COLUMN "vitalperiodic"."systemicmean" IS 'patient''s mean pressure e.g.: 89, 75, 78, etc.';
ALTER TABLE "diagnosis" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "treatment" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "lab" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "medication" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
-- join key (referenced column not unique): cost(patienthealthsystemstayid) -> patient(patienthealthsystemstayid)
ALTER TABLE "allergy" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "intakeoutput" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "microlab" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
ALTER TABLE "vitalperiodic" ADD FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid");
